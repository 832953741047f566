! A deck reader's character handling and a kernel's array arguments, through
! flang's runtime: TRIM, ADJUSTL, SCAN, INDEX, LEN_TRIM, VERIFY, a comparison
! of strings of different lengths, an allocatable string assigned, FLUSH, a
! pointer remapped to new bounds, and an assumed-shape section passed to an
! explicit-shape dummy (copied in and out where it is not contiguous). None
! of them does floating-point work; the kernel's flops are 2 n a call.
! Usage: runtime_helpers N
module runtime_helpers_kernels
  implicit none
contains
  subroutine scale(v, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: v(n)
    integer :: i
    do i = 1, n
      v(i) = 2.0d0 * v(i) + 1.0d0
    end do
  end subroutine scale

  subroutine scale_section(a, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(:)
    call scale(a, n)
  end subroutine scale_section
end module runtime_helpers_kernels

program runtime_helpers
  use runtime_helpers_kernels
  implicit none
  character(len=64) :: word, line
  character(len=:), allocatable :: kept
  double precision, allocatable, target :: grid(:, :)
  double precision, pointer :: flat(:), older(:, :), newer(:, :), swap(:, :)
  integer :: n, found, length
  call get_command_argument(1, word)
  read (word, *) n
  line = '   *clover  '
  line = adjustl(line)
  found = scan(line, '*')
  found = found + index(line, 'clover') + verify(line, ' ')
  length = len_trim(line)
  kept = trim(line)
  if (kept == '*clover') found = found + 1
  allocate (grid(n, 2))
  grid = 1.0d0
  flat(0:) => grid(:, 1)
  allocate (older(n, 2), newer(n, 2))
  swap => older
  older => newer
  newer => swap
  call scale_section(grid(1, :), 2)
  call scale_section(grid(:, 2), n)
  print *, found, length, flat(0) + grid(n, 2), size(older)
  call flush(6)
end program runtime_helpers

! Several loops or branches at one source line, in Fortran: an array
! statement over rank-3 arrays whose extents the subroutine reads from their
! descriptors (three nested loops at one line, outermost the last dimension),
! and IF (a .OR. b) on data. For N1 x N2 x N3 elements, a multiple of 12:
! x(i) > 0.5 for mod(i, 4) /= 0 and y(i) >= 0 for mod(i, 3) == 0, so the test
! holds for 5 i in 6. `same_line N1 N2 N3`
module same_line_kernels
  implicit none
contains
  subroutine update(a, b, c)
    double precision, intent(out) :: a(:, :, :)
    double precision, intent(in) :: b(:, :, :), c(:, :, :)
    a = b * c + 1.0d0 ! marker: array
  end subroutine update

  double precision function either(x, y, n)
    integer, intent(in) :: n
    double precision, intent(in) :: x(n), y(n)
    integer :: i, j
    either = 0.0d0
    do i = 1, n
      if ((x(i) > 0.5d0) .or. (y(i) >= 0.0d0)) then ! marker: or
        either = either + 1.0d0 ! marker: or_then
      else
        do j = 1, 8 ! marker: or_else
          either = either * 0.5d0 + x(j)
        end do
      end if
    end do
  end function either
end module same_line_kernels

program same_line
  use mpi
  use same_line_kernels
  implicit none
  integer :: ierr, n1, n2, n3, n, i
  character(len=32) :: arg
  double precision, allocatable :: a(:, :, :), b(:, :, :), c(:, :, :), x(:), y(:)
  double precision :: total, s
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n1
  call get_command_argument(2, arg)
  read (arg, *) n2
  call get_command_argument(3, arg)
  read (arg, *) n3
  n = n1 * n2 * n3
  allocate (a(n1, n2, n3), b(n1, n2, n3), c(n1, n2, n3), x(n), y(n))
  b(:, :, :) = 2.0d0
  c(:, :, :) = 0.5d0
  do i = 1, n
    x(i) = merge(1.0d0, 0.0d0, mod(i, 4) /= 0)
    y(i) = merge(1.0d0, -1.0d0, mod(i, 3) == 0)
  end do
  call update(a, b, c)
  s = a(1, 1, 1) + either(x, y, n)
  call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program same_line

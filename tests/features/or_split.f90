! IF (a .OR. b) whose later test has arithmetic of its own: flang holds the
! two tests as one `or` value, x86 code tests `d >= 0` first and computes `l`
! (5 flops) only where d < 0. For n a multiple of 8: d < 0 with l <= 0 (the
! else side) for mod(i, 8) == 0, d < 0 with l > 0 for mod(i, 8) == 1, d >= 0
! elsewhere. `or_split N`
module or_split_kernels
  implicit none
contains
  subroutine kern(a, b, c, out, n)
    integer, intent(in) :: n
    double precision, intent(in) :: a(n), b(n), c(n)
    double precision, intent(out) :: out(n)
    double precision :: d, l
    integer :: i
    do i = 1, n
      d = b(i) * c(i) + a(i)
      l = (a(i) * a(i) - c(i) * b(i)) / (a(i) + b(i) + c(i))
      if ((l > 0.0d0) .or. (d >= 0.0d0)) then ! marker: or
        out(i) = 0.0d0
      else
        out(i) = (l * l + d * d) / (l - d) * a(i) + max(l, 1.0d-16) * b(i)
      end if
    end do
  end subroutine kern
end module or_split_kernels

program or_split
  use mpi
  use or_split_kernels
  implicit none
  integer :: ierr, n, i
  character(len=32) :: arg
  double precision, allocatable :: a(:), b(:), c(:), out(:)
  double precision :: total, s
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate (a(n), b(n), c(n), out(n))
  do i = 1, n
    select case (mod(i, 8))
    case (0)  ! d = -3, l = -1.5
      a(i) = -1.0d0
      b(i) = 1.0d0
      c(i) = -2.0d0
    case (1)  ! d = -0.5, l = 41
      a(i) = 4.0d0
      b(i) = 1.0d0
      c(i) = -4.5d0
    case default  ! d = 2, l = 0
      a(i) = 1.0d0
      b(i) = 1.0d0
      c(i) = 1.0d0
    end select
  end do
  call kern(a, b, c, out, n)
  s = out(1) + out(8)
  call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program or_split

! A sweep whose direction picks its first and last cell and its step
! (SNAP's `jd`): the vectoriser checks the direction at run time (a reversed
! step cannot be vectorised as written) and falls back to the scalar loop for
! the whole count where it is reversed; the vector loop leaves the scalar
! loop only its remainder otherwise. 2 n flops a step either way.
! Usage: reversed_sweep N STEPS JD
module reversed_sweep_kernel
  implicit none
contains
  subroutine line_sweep(jd, n, a)
    integer, intent(in) :: jd, n
    double precision, intent(inout) :: a(n)
    integer :: jst, jlo, jhi, j
    if (jd == 1) then
      jst = -1; jlo = n; jhi = 1
    else
      jst = +1; jlo = 1; jhi = n
    end if
    do j = jlo, jhi, jst
      a(j) = a(j) * 0.5d0 + 1.0d0
    end do
  end subroutine line_sweep
end module reversed_sweep_kernel

program reversed_sweep
  use reversed_sweep_kernel
  implicit none
  double precision, allocatable :: a(:)
  character(len=32) :: word
  integer :: n, steps, jd, s
  call get_command_argument(1, word)
  read (word, *) n
  call get_command_argument(2, word)
  read (word, *) steps
  call get_command_argument(3, word)
  read (word, *) jd
  allocate (a(n))
  a = 1.0d0
  do s = 1, steps
    call line_sweep(jd, n, a)
  end do
  print *, a(1)
end program reversed_sweep

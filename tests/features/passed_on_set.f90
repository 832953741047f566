! The set-up and the kernel of passed_on.f90, a unit of their own: what
! `inner` calls is not inlined into it.
module passed_on_set
  implicit none
contains
  subroutine assign_set(ng, nper)
    integer, intent(in) :: ng
    integer, intent(inout) :: nper
    nper = ng
  end subroutine assign_set

  subroutine kernel(nper, x)
    integer, intent(in) :: nper
    double precision, intent(inout) :: x(:)
    integer :: n
    do n = 1, nper
      x(n) = x(n) * 0.5d0 + 1.0d0 / x(n)
    end do
  end subroutine kernel

end module passed_on_set

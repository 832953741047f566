! The kernel of selector_sides.f90, in a file of its own as CloverLeaf's
! advec_mom_kernel is (the caller's unit cannot inline it): its local selector
! picks one of four sides of an IF/ELSEIF chain.
subroutine kernel(direction, sweep_number, n, x)
  implicit none
  integer, intent(in) :: direction, sweep_number, n
  real(8), intent(inout) :: x(n)
  integer :: i, sel  ! marker: sel
  sel = direction + 2 * (sweep_number - 1)
  if (sel .eq. 1) then  ! marker: first
    do i = 1, n
      x(i) = x(i) * 0.5d0
    end do
  else if (sel .eq. 2) then
    do i = 1, n
      x(i) = x(i) * 0.5d0 + 1.0d0
    end do
  else if (sel .eq. 3) then
    do i = 1, n
      x(i) = (x(i) + 1.0d0) * (x(i) - 1.0d0) + 2.0d0
    end do
  else if (sel .eq. 4) then
    do i = 1, n
      x(i) = ((x(i) + 1.0d0) * 0.5d0 + 3.0d0) * 0.25d0 - 1.0d0
    end do
  end if
end subroutine kernel

! The step counter of step_counter.f90, in its own unit (as CloverLeaf's
! timestep is): the analyser optimises each unit before linking them, so
! the increment and the summary are calls in the time loop, not inlined.
module control
  implicit none
  integer :: step
contains
  subroutine advance()
    step = step + 1
  end subroutine advance

  subroutine summary(total, it)
    double precision, intent(inout) :: total
    integer, intent(in) :: it
    total = total * 0.5d0 + it
  end subroutine summary
end module control

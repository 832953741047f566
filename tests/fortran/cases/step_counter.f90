! A time loop whose step counter is a module variable that a subroutine of
! another unit increments (step_counter_control.f90), and a summary every
! `freq` steps (mod(step, freq) == 0), as CloverLeaf's hydro does. The
! counter changes in the loop: it is no parameter (one value for every
! iteration would run the summary every step or never); the test is a data
! branch the coverage lists.
! Usage: echo "NSTEPS FREQ" | step_counter
program step_counter
  use control
  implicit none
  integer :: nsteps, freq, it
  double precision :: total
  read (*, *) nsteps, freq
  step = 0
  total = 0.0d0
  do it = 1, nsteps
    call advance()
    if (mod(step, freq) == 0) then
      call summary(total, it)
    end if
  end do
  print *, total
end program step_counter

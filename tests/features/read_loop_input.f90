! The fetch of read_loop.f90, a unit of its own so that the optimiser cannot
! see into it: the doubling `x` within LIMIT says a record is there.
module read_loop_input
  implicit none
contains
  integer function next_record(x, limit, values)
    double precision, intent(inout) :: x
    double precision, intent(in) :: limit
    double precision, intent(out) :: values(:)
    x = x * 2.0d0
    if (x > limit) then
      next_record = 1
    else
      values(:) = 1.0d0
      next_record = 0
    end if
  end function next_record
end module read_loop_input


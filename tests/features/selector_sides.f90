! A routine called in a loop whose local selector cycles through 1..4 and
! picks one of four sides, each doing different work (selector_kernel.f90),
! as CloverLeaf's advec_mom_kernel does with mom_sweep = direction +
! 2*(sweep_number - 1); the direction alternates with a module flag (test
! ProbeRun.PricesTheTestsOfASelectorThatVariedByTheSidesThatRan).
module sweeps
  implicit none
  logical :: advect_x = .true.
end module sweeps

program main
  use mpi
  use sweeps
  implicit none
  integer :: ierr, step, steps, n, direction
  character(len=32) :: arg
  real(8), allocatable :: x(:)
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) steps
  allocate(x(n))
  x = 1.0d0
  do step = 1, steps
    if (advect_x) then
      direction = 1
    else
      direction = 2
    end if
    call kernel(direction, 1, n, x)
    call kernel(3 - direction, 2, n, x)
    advect_x = .not. advect_x
  end do
  call MPI_Finalize(ierr)
end program main

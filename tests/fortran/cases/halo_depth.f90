! A set-up, then a steps loop, calling one kernel (halo_depth_kernel.f90) at
! two depths: the set-up at depth 2, each step at depth 1. The run's footprint
! of the kernel's nest does not evaluate (the steps' depth-1 calls), a 0-step
! baseline's does (those calls are not made): the timed part must still be
! the run's accesses less the baseline's.
! Usage: halo_depth N STEPS
program halo_depth
  use mpi
  use halo_depth_kernel
  implicit none
  integer :: ierr, n, steps, step, lo
  double precision, allocatable :: density(:, :)
  character(len=32) :: arg

  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) steps
  allocate (density(-1:n + 2, -1:n + 2))
  lo = 1
  density = 1.0d0
  call reflect(lo, n, n, 2, density)
  do step = 1, steps
    call reflect(lo, n, n, 1, density)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  deallocate (density)
  call MPI_Finalize(ierr)
end program halo_depth

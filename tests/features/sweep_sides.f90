! A sweep over two directions read from a table (SNAP's octants: `jd`, which
! the analyser cannot follow), each calling a boundary routine that waits on
! the side its direction has a neighbour on (sweep_sides_comm.f90, SNAP's
! `sweep_recv_bdry`: `IF (incomingy) CALL precv`, `IF (outgoingy) CALL
! waitall`). The direction's tests in it are priced by the run's counts of
! their one-line IFs: at 1 rank no side has a neighbour and no call waits; at
! 2 ranks each rank waits once in each direction.
! The module sweep_sides_comm.f90 comes first.
! Usage: sweep_sides STEPS
program sweep_sides
  use sweep_sides_comm
  implicit none
  integer :: steps, s, ierr, rank, nranks, d
  integer :: dirs(2), reqs(2)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) steps
  firsty = rank == 0
  lasty = rank == nranks - 1
  use_lock = .false.
  dirs = (/ 1, 2 /)
  reqs = MPI_REQUEST_NULL
  do s = 1, steps
    do d = 1, 2
      call recv_bdry(dirs(d), reqs, 2)
    end do
  end do
  if (rank == 0) print *, locks
  call MPI_Finalize(ierr)
end program sweep_sides

! A send behind a guard that returns early when the peer is the rank itself
! (return_guard_comm.f90, SNAP's `isend_d_3d`), called for four peers a step,
! read from a table the analyser cannot follow: each rank's own rank three
! times and the other rank once. So 1 in 4 calls sends (STEPS sends a rank),
! which only the run's counts of the guard's two sides say; at its guess of
! one half the model would send twice as often.
! The module return_guard_comm.f90 comes first.
! Usage: return_guard STEPS (on 2 ranks)
program return_guard
  use return_guard_comm
  implicit none
  integer :: steps, s, k, ierr, rank, nranks, req, got
  integer :: peers(4)
  integer :: status(MPI_STATUS_SIZE)
  double precision :: buf(2, 3), inbox(6)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) steps
  call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, ycomm, ierr)
  call MPI_Comm_rank(ycomm, yproc, ierr)
  peers = (/ yproc, 1 - yproc, yproc, yproc /)
  buf = 1.0d0
  got = 0
  do s = 1, steps
    do k = 1, 4
      req = MPI_REQUEST_NULL
      call isend_d_2d(peers(k), yproc, 2, 3, buf, ycomm, req)
      if (req /= MPI_REQUEST_NULL) call MPI_Wait(req, status, ierr)
    end do
    call MPI_Recv(inbox, 6, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 7, ycomm, status, ierr)
    got = got + 1
  end do
  if (rank == 0) print *, got
  call MPI_Comm_free(ycomm, ierr)
  call MPI_Finalize(ierr)
end program return_guard

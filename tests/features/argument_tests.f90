! A send wrapper that returns early when its peer is the rank itself (SNAP's
! plib `isend_d_3d`: `IF (proc == myproc .OR. comm == MPI_COMM_NULL) RETURN`),
! called with the peer of a direction read from a table (`dirs(step)`: the
! analyser cannot follow it) and the rank in a communicator of its own (an
! MPI_COMM_SPLIT: no one value). At 2 ranks each rank's low and high
! neighbours are 0 and 1, so of the two directions each rank sends in one:
! STEPS sends a rank, and none of the values a user could give the model
! decides the test for every call; the run's counts of it do.
! The module argument_tests_comm.f90 comes first.
! Usage: argument_tests STEPS
module argument_tests_dirs
  use argument_tests_comm
  implicit none
contains
  subroutine send_dir(jd, n, value, req)
    integer, intent(in) :: jd, n
    double precision, intent(in) :: value(n)
    integer, intent(inout) :: req
    integer :: peer
    if (jd == 1) then
      peer = ylop
    else
      peer = yhip
    end if
    call isend_d(peer, yproc, n, value, ycomm, req)
  end subroutine send_dir
end module argument_tests_dirs

program argument_tests
  use argument_tests_comm
  use argument_tests_dirs
  implicit none
  integer :: steps, s, ierr, rank, nranks, req, jd, got
  integer :: dirs(2)
  integer :: status(MPI_STATUS_SIZE)
  double precision :: buf(4), inbox(4)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) steps
  call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, ycomm, ierr)
  call MPI_Comm_rank(ycomm, yproc, ierr)
  ylop = max(yproc - 1, 0)
  yhip = min(yproc + 1, nranks - 1)
  dirs = (/ 1, 2 /)
  buf = 1.0d0
  got = 0
  do s = 1, steps
    do jd = 1, 2
      req = MPI_REQUEST_NULL
      call send_dir(dirs(jd), 4, buf, req)
      if (req /= MPI_REQUEST_NULL) call MPI_Wait(req, status, ierr)
    end do
    if (nranks > 1) then
      call MPI_Recv(inbox, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 7, ycomm, status, ierr)
      got = got + 1
    end if
  end do
  if (rank == 0) print *, got
  call MPI_Comm_free(ycomm, ierr)
  call MPI_Finalize(ierr)
end program argument_tests

! Loops that poll for a message, whose trips are how long it takes to arrive:
! DO WHILE (.NOT. flag) around MPI_TEST; a DO left once the request a wrapper
! tests is MPI_REQUEST_NULL (SNAP's multiswp_test_pick); a DO left once
! ANY of the requests a wrapper of MPI_TESTSOME tests is null, through an
! array the loop fills. Each polling loop also does n flops a pass.
! Usage: polling_main N (2 ranks or more).
program polling_main
  use mpi
  use polling_kernels
  implicit none
  integer :: ierr, rank, nprocs, n, i, left, right, req, outcount
  integer :: reqs(2), indx(2), ready(2)
  integer :: stat(MPI_STATUS_SIZE)
  logical :: flag
  double precision :: sbuf, rbuf, work
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sbuf = rank
  work = 0.0d0

  call MPI_IRECV(rbuf, 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req, ierr)
  call MPI_SEND(sbuf, 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_TEST(req, flag, stat, ierr)
    do i = 1, n
      work = work * 0.5d0 + rbuf
    end do
  end do

  call MPI_IRECV(rbuf, 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req, ierr)
  call MPI_SEND(sbuf, 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, ierr)
  send_loop: do
    call test_one(req)
    if (req == MPI_REQUEST_NULL) exit send_loop
  end do send_loop

  call MPI_IRECV(rbuf, 1, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sbuf, 1, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  some_loop: do
    call test_some(2, reqs, indx, outcount)
    do i = 1, 2
      ready(i) = 0
      if (reqs(i) == MPI_REQUEST_NULL) ready(i) = 1
    end do
    if (all(ready == 1)) exit some_loop
  end do some_loop

  if (rank == 0) print *, work
  call MPI_Finalize(ierr)
end program polling_main

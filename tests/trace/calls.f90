! The Fortran side of the tracer's test (`use mpi`, whose calls reach Open MPI's
! Fortran bindings, which call PMPI_ directly): like calls.c, it writes the
! event each MPI call should record to DIR/expected-rank-N.txt (DIR = first
! argument). Runs on 4 ranks.
program calls
  use mpi
  implicit none
  integer :: ierr, rank, nranks, who, i, half, left, right, provided, grid, column, other
  integer :: requests(2), dims(2)
  logical :: periods(2), remain(2)
  double precision :: mine, theirs
  double precision :: x(4), y(4)
  character(len=4096) :: dir
  character(len=4200) :: path

  call mpi_init_thread(MPI_THREAD_SINGLE, provided, ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, dir)
  write(path, '(a,a,i0,a)') trim(dir), '/expected-rank-', rank, '.txt'
  open(unit=10, file=trim(path), status='replace', action='write')
  write(10, '(a)') 'init'
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)

  ! Any-source receives with MPI_STATUS_IGNORE: the sender is in the payload.
  if (rank == 0) then
    do i = 1, nranks - 1
      call mpi_recv(who, 1, MPI_INTEGER, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      write(10, '(a,i0,a)') 'recv peer=', who, ' tag=10 bytes=4'
    end do
  else
    call mpi_send(rank, 1, MPI_INTEGER, 0, 10, MPI_COMM_WORLD, ierr)
    write(10, '(a)') 'send peer=0 tag=10 bytes=4'
  end if

  x = rank
  call mpi_irecv(y, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, requests(1), ierr)
  write(10, '(a,i0,a)') 'irecv peer=', left, ' tag=20 bytes=32 req=1'
  call mpi_isend(x, 4, MPI_DOUBLE_PRECISION, right, 20, MPI_COMM_WORLD, requests(2), ierr)
  write(10, '(a,i0,a)') 'isend peer=', right, ' tag=20 bytes=32 req=2'
  call mpi_waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
  write(10, '(a)') 'waitall req=1,2'

  call mpi_allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  write(10, '(a)') 'allreduce bytes=32 bytes2=32'
  call mpi_bcast(y, 3, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD, ierr)
  write(10, '(a)') 'bcast root=1 bytes=24 bytes2=24'

  call mpi_comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  write(10, '(a,i0,a,i0,a)') 'comm_split color=', mod(rank, 2), ' key=', rank, ' new=2'
  call mpi_barrier(half, ierr)
  write(10, '(a)') 'barrier comm=2'
  call mpi_comm_free(half, ierr)
  write(10, '(a)') 'comm_free comm=2'

  ! A 2 x 2 grid split into its columns (MPI_CART_SUB, as SNAP makes its sweep
  ! communicators), then messages and a reduction within a column. Recorded as
  ! the split that makes the same groups: color = the grid rank of the column's
  ! first member, key = the rank in the column (reorder off: grid rank = world rank).
  dims = (/ 2, 2 /)
  periods = .false.
  call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., grid, ierr)
  write(10, '(a)') 'cart_create new=3'
  remain = (/ .true., .false. /)
  call mpi_cart_sub(grid, remain, column, ierr)
  write(10, '(a,i0,a,i0,a)') 'comm_split comm=3 color=', mod(rank, 2), ' key=', rank / 2, ' new=4'
  other = 1 - rank / 2
  mine = rank
  call mpi_irecv(theirs, 1, MPI_DOUBLE_PRECISION, other, 30, column, requests(1), ierr)
  write(10, '(a,i0,a)') 'irecv comm=4 peer=', other, ' tag=30 bytes=8 req=3'
  call mpi_isend(mine, 1, MPI_DOUBLE_PRECISION, other, 30, column, requests(2), ierr)
  write(10, '(a,i0,a)') 'isend comm=4 peer=', other, ' tag=30 bytes=8 req=4'
  call mpi_waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
  write(10, '(a)') 'waitall req=3,4'
  call mpi_allreduce(MPI_IN_PLACE, mine, 1, MPI_DOUBLE_PRECISION, MPI_SUM, column, ierr)
  write(10, '(a)') 'allreduce comm=4 bytes=8 bytes2=8'
  call mpi_comm_free(column, ierr)
  write(10, '(a)') 'comm_free comm=4'
  call mpi_comm_free(grid, ierr)
  write(10, '(a)') 'comm_free comm=3'
  ! MPI_PCONTROL(LEVEL) has no error argument
  call mpi_pcontrol(1)
  write(10, '(a)') 'pcontrol tag=1'

  call mpi_finalize(ierr)
  write(10, '(a)') 'finalize'
  close(10)
end program calls

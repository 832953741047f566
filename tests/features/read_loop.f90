! Records fetched until the input says it ended, in the shape of an input
! parser's loop: a DO without control whose body starts with the call that
! fetches the next record and leaves by EXIT when the call says there is none
! (a test after work: the optimised loop starts at that test, the probes'
! at the fetch), then works on the record. The fetch is a unit of its own
! (read_loop_input.f90): a record is there while the doubling `x` stays
! within LIMIT, so `read_loop LIMIT NFIELD` for LIMIT = 2**NREC reads NREC
! records of NFIELD fields, 2 flops a field and 1 a fetch (NREC + 1).
program read_loop
  use mpi
  use read_loop_input
  implicit none
  integer :: ierr, stat, i, nfield
  double precision, allocatable :: values(:)
  double precision :: s, total, x, limit
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) limit
  call get_command_argument(2, arg)
  read (arg, *) nfield
  allocate(values(nfield))
  x = 1.0d0
  s = 0.0d0
  do ! marker: statement
    stat = next_record(x, limit, values) ! marker: fetch
    if (stat /= 0) exit ! marker: test
    do i = 1, nfield
      s = s + values(i) * 0.5d0
    end do
  end do
  call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program read_loop

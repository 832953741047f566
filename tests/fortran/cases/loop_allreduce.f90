! include 'mpif.h': a DO loop of n iterations of 2 flops (a multiply and an
! add), then an MPI_Allreduce of one double. Usage: loop_allreduce N
program loop_allreduce
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, n, i
  double precision :: s, x, total
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  s = 0.0d0
  x = 0.5d0 + 1.0d0 / (rank + 2)
  do i = 1, n
    s = s * x + 1.0d0
  end do
  call MPI_Allreduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, total
  call MPI_Finalize(ierr)
end program loop_allreduce

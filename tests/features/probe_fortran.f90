! A Fortran MPI program whose features are known: built with perfcast-mpif90
! (flang with the probes), run on real ranks; the test finds each feature's
! line by the marker comment at its end.
program probe_fortran
  use mpi
  implicit none
  integer :: ierr, rank, steps, i
  character(len=32) :: arg
  double precision :: x, y ! marker: x_declared
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  read (arg, *) steps
  x = 1.5d0 ! marker: x
  do i = 1, steps ! marker: loop
    x = x * 1.0001d0
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! marker: allreduce
  end do
  if (rank == 0) then ! marker: branch
    print *, y
  end if
  call MPI_Finalize(ierr)
end program probe_fortran

! Mixed C and Fortran: the Fortran main program calls C kernels
! (mixed_kernel.c): axpy (2 flops per element) through bind(c), and scale_c
! (1 flop per element) with no interface, by reference; then reduces.
! Usage: mixed N
program mixed
  use mpi
  use iso_c_binding, only: c_int, c_double
  implicit none
  interface
    subroutine axpy(n, a, x, y) bind(c, name='axpy')
      import :: c_int, c_double
      integer(c_int), value :: n
      real(c_double), value :: a
      real(c_double) :: x(*), y(*)
    end subroutine axpy
  end interface
  integer :: ierr, rank, n
  double precision, allocatable :: x(:), y(:)
  double precision :: local, total
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate (x(n), y(n))
  x = 1.0d0
  y = 2.0d0
  call axpy(n, 3.0d0, x, y)
  call scale_c(n, y)
  local = y(n)
  call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, total
  deallocate (x, y)
  call MPI_Finalize(ierr)
end program mixed

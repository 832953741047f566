! Values passed by reference whose caller knows them: the DO index and a size
! computed from it, stored to flang's temporaries right before the call; a
! module variable stored before one call and changed by another subroutine
! before the next; a communicator module variable MPI_Comm_dup creates.
! Usage: byref_main NG NX
program byref_main
  use mpi
  use byref_kernels
  implicit none
  integer :: ng, nx, g, m, ierr
  character(len=32) :: arg
  double precision, allocatable :: a(:)
  double precision :: x
  call MPI_Init(ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm_work, ierr)
  call get_command_argument(1, arg)
  read (arg, *) ng
  call get_command_argument(2, arg)
  read (arg, *) nx
  allocate(a(2 * nx + ng + 2))
  a = 1.0d0
  do g = 1, ng
    m = 2 * nx + g
    call scale_rows(g, m, a)
  end do
  width = nx
  call add_rows(width, a)
  call widen()
  call add_rows(width, a)
  x = a(1)
  call reduce_max(x, comm_work)
  print *, x
  call MPI_Finalize(ierr)
end program byref_main

! The communication module of argument_tests.f90 (a unit of its own, as
! SNAP's plib): the rank in a communicator split from MPI_COMM_WORLD, its
! neighbours, and the send wrapper that returns early when its peer is the rank.
module argument_tests_comm
  use mpi
  implicit none
  integer :: ycomm, yproc, ylop, yhip
contains
  subroutine isend_d(proc, myproc, n, value, comm, req)
    integer, intent(in) :: proc, myproc, n, comm
    double precision, intent(in) :: value(n)
    integer, intent(inout) :: req
    integer :: ierr
    if (proc == myproc .or. comm == MPI_COMM_NULL) return  ! marker: guard
    call MPI_Isend(value, n, MPI_DOUBLE_PRECISION, proc, 7, comm, req, ierr)
  end subroutine isend_d

end module argument_tests_comm


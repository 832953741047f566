! The communication module of rank_by_reference.f90 (a unit of its own, as
! SNAP's plib): the rank in a duplicate of MPI_COMM_WORLD, which
! MPI_COMM_RANK writes through its address and no statement assigns, and the
! send and receive wrappers that return early where the peer is the rank.
module rank_by_reference_comm
  use mpi
  implicit none
  integer :: comm_space, sproc
contains
  subroutine pinit()
    integer :: ierr
    call MPI_Comm_dup(MPI_COMM_WORLD, comm_space, ierr)
    call MPI_Comm_rank(comm_space, sproc, ierr)
  end subroutine pinit

  subroutine psend(proc, myproc, n, value, comm, tag)
    integer, intent(in) :: proc, myproc, n, comm, tag
    double precision, intent(in) :: value(n)
    integer :: ierr
    if (proc == myproc) return
    call MPI_Send(value, n, MPI_DOUBLE_PRECISION, proc, tag, comm, ierr)
  end subroutine psend

  subroutine precv(proc, myproc, n, value, comm, tag)
    integer, intent(in) :: proc, myproc, n, comm, tag
    double precision, intent(inout) :: value(n)
    integer :: ierr
    if (proc == myproc) return
    call MPI_Recv(value, n, MPI_DOUBLE_PRECISION, proc, tag, comm, MPI_STATUS_IGNORE, ierr)
  end subroutine precv
end module rank_by_reference_comm

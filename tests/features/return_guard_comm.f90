! The communication module of return_guard.f90 (a unit of its own, as SNAP's
! plib): the rank in a communicator split from MPI_COMM_WORLD, and a send
! wrapper of SNAP's `isend_d_3d` shape: an explicit-shape dummy (whose extents
! the optimised code computes on the send's side, at the declaration's line),
! a guard whose taken side is a bare RETURN, and the length computed after it.
module return_guard_comm
  use mpi
  implicit none
  integer :: ycomm, yproc
contains
  subroutine isend_d_2d(proc, myproc, d1, d2, value, comm, req)
    integer, intent(in) :: proc, myproc, d1, d2, comm
    integer, intent(inout) :: req
    double precision, dimension(d1, d2), intent(in) :: value
    integer :: dlen, ierr
    if (proc == myproc .or. comm == MPI_COMM_NULL) return  ! marker: guard
    dlen = d1*d2
    call MPI_Isend(value, dlen, MPI_DOUBLE_PRECISION, proc, 7, comm, req, ierr)
  end subroutine isend_d_2d

end module return_guard_comm

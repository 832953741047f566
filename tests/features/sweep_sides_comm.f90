! The communication module of sweep_sides.f90 (a unit of its own, as SNAP's
! plib and thrd_comm): whether the rank is first and last along its line of
! ranks, and a sweep's boundary routine that waits on the sides a direction
! has neighbours on. Its one-line tests follow another one-line test whose
! untaken side lands on their line, and it has no loop or other guess of
! its own to name its file by.
module sweep_sides_comm
  use mpi
  implicit none
  logical :: firsty, lasty, use_lock
  integer :: locks = 0
contains
  subroutine recv_bdry(jd, reqs, nreq)
    integer, intent(in) :: jd, nreq
    integer, intent(inout) :: reqs(nreq)
    integer :: ierr
    logical :: incoming, outgoing
    if (jd == 1) then
      incoming = .not. lasty
      outgoing = .not. firsty
    else
      incoming = .not. firsty
      outgoing = .not. lasty
    end if
    if (use_lock) locks = locks + 1
    if (incoming) call MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE, ierr)  ! marker: incoming
    if (outgoing) call MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE, ierr)  ! marker: outgoing
  end subroutine recv_bdry

end module sweep_sides_comm

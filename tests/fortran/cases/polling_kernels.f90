! The test wrappers of polling_main.f90, in a unit of their own as SNAP's
! plib keeps them, so no call is inlined: the request is passed by reference,
! and MPI_TEST resets it to MPI_REQUEST_NULL once it completed.
module polling_kernels
  use mpi
  implicit none
contains
  ! Tests one request; the flag stays here (SNAP's `tests`).
  subroutine test_one(req)
    integer, intent(inout) :: req
    integer :: ierr
    integer :: stat(MPI_STATUS_SIZE)
    logical :: flag
    call MPI_TEST(req, flag, stat, ierr)
  end subroutine test_one

  ! Tests several; outcount says how many completed (SNAP's `testsome`).
  subroutine test_some(n, reqs, indx, outcount)
    integer, intent(in) :: n
    integer, intent(inout) :: reqs(n)
    integer, intent(out) :: indx(n), outcount
    integer :: ierr
    integer :: stat(MPI_STATUS_SIZE, n)
    call MPI_TESTSOME(n, reqs, outcount, indx, stat, ierr)
  end subroutine test_some
end module polling_kernels

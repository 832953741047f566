! The kernels of byref_main.f90, in a unit of their own as an application
! keeps them, so no call is inlined: each loop's trips are an integer dummy
! argument, which Fortran passes by reference.
module byref_kernels
  use mpi
  implicit none
  integer :: width      ! a module variable the main program sets, then passes
  integer :: comm_work  ! a communicator the main program creates
contains
  ! m elements, 2 flops each (g only shifts the values).
  subroutine scale_rows(g, m, a)
    integer, intent(in) :: g, m
    double precision, intent(inout) :: a(*)
    integer :: i
    do i = 1, m
      a(i) = a(i) * 0.5d0 + dble(g)
    end do
  end subroutine scale_rows

  ! m elements, 1 flop each.
  subroutine add_rows(m, a)
    integer, intent(in) :: m
    double precision, intent(inout) :: a(*)
    integer :: i
    do i = 1, m
      a(i) = a(i) + 1.0d0
    end do
  end subroutine add_rows

  ! Changes the module variable: a store between the caller's store and its call.
  subroutine widen()
    width = width + 1
  end subroutine widen

  ! The maximum over the communicator's ranks, skipped on MPI_COMM_NULL: the
  ! communicator decides only that test.
  subroutine reduce_max(x, comm)
    double precision, intent(inout) :: x
    integer, intent(in) :: comm
    double precision :: y
    integer :: ierr
    if (comm == MPI_COMM_NULL) return
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
    x = y
  end subroutine reduce_max
end module byref_kernels

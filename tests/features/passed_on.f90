! A count a procedure receives by reference and passes on (Fortran passes
! every argument so): `inner` has its dummy `nper` set by a call
! (`assign_set`, the groups a thread takes) and then hands that dummy to the
! kernel, whose loop it sizes (passed_on_set.f90, a unit of its own).
! `passed_on NG NITER`: each of NITER passes sweeps NG groups of 3 flops;
! then NG adds.
module passed_on_work
  use passed_on_set
  implicit none
contains
  subroutine inner(ng, nper, x)
    integer, intent(in) :: ng
    integer, intent(inout) :: nper
    double precision, intent(inout) :: x(:)
    call assign_set(ng, nper)
    call kernel(nper, x) ! marker: passed
  end subroutine inner
end module passed_on_work

program passed_on
  use mpi
  use passed_on_work
  implicit none
  integer :: ierr, ng, niter, it, nper
  double precision, allocatable :: x(:)
  double precision :: s, total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) ng
  call get_command_argument(2, arg)
  read (arg, *) niter
  allocate(x(ng))
  x = 2.0d0
  nper = 0
  do it = 1, niter
    call inner(ng, nper, x)
  end do
  s = 0.0d0
  do it = 1, ng
    s = s + x(it)
  end do
  call MPI_Reduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program passed_on

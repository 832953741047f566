! Array statements over a module's allocatable array inside OpenMP parallel
! loops, in the shape of a transport solver's group loops: the front end
! outlines each parallel region into a function without a line of its own, so
! the regions' functions share one (line 0) and the probes tell their loops
! apart by function; a statement's nest (its columns, then its rows) is told
! apart by depth. In `scale_groups` the master thread loops over the groups;
! in `shift_groups` the group loop is shared among the threads, and the
! optimised code names it at the statement's line, so the model has one loop
! more at that line than the probes, and no depth there can be trusted.
! `omp_nests NX NG`: 3 calls of scale_groups on NG groups of NX * NX elements
! (1 flop each), then one of shift_groups (1 flop each).
module omp_nests_data
  implicit none
  double precision, allocatable :: flux(:, :, :)
end module omp_nests_data

subroutine scale_groups(ng)
  use omp_nests_data
  implicit none
  integer, intent(in) :: ng
  integer :: g
  !$omp parallel
  !$omp master
  do g = 1, ng
    flux(:, :, g) = flux(:, :, g) * 0.5d0 ! marker: nest
  end do
  !$omp end master
  !$omp end parallel
end subroutine scale_groups

subroutine shift_groups(ng)
  use omp_nests_data
  implicit none
  integer, intent(in) :: ng
  integer :: g
  !$omp parallel do
  do g = 1, ng
    flux(:, :, g) = flux(:, :, g) + 1.0d0 ! marker: first
  end do
  !$omp end parallel do
end subroutine shift_groups

program omp_nests
  use mpi
  use omp_nests_data
  implicit none
  integer :: ierr, nx, ng, k
  double precision :: total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) nx
  call get_command_argument(2, arg)
  read (arg, *) ng
  allocate(flux(nx, nx, ng))
  flux = 1.0d0
  do k = 1, 3
    call scale_groups(ng)
  end do
  call shift_groups(ng)
  call MPI_Reduce(flux(1, 1, 1), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program omp_nests

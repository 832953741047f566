! The shared group loop of omp_nests.f90 alone in its unit: one OpenMP region,
! so its loops carry no function of their own to tell them by, only their
! depth at the statement's line, where the optimised code names the group
! loop too: the model has one loop more there than the probes, and no depth
! can be trusted. `omp_one_region NX NG`: one call adding 1 to NG groups of
! NX * NX elements.
module omp_one_region_data
  implicit none
  double precision, allocatable :: flux(:, :, :)
end module omp_one_region_data

subroutine shift_groups(ng)
  use omp_one_region_data
  implicit none
  integer, intent(in) :: ng
  integer :: g
  !$omp parallel do
  do g = 1, ng
    flux(:, :, g) = flux(:, :, g) + 1.0d0 ! marker: first
  end do
  !$omp end parallel do
end subroutine shift_groups

program omp_one_region
  use mpi
  use omp_one_region_data
  implicit none
  integer :: ierr, nx, ng
  double precision :: total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) nx
  call get_command_argument(2, arg)
  read (arg, *) ng
  allocate(flux(nx, nx, ng))
  flux = 1.0d0
  call shift_groups(ng)
  call MPI_Reduce(flux(1, 1, 1), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program omp_one_region

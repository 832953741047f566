! Parameter names of a Fortran program: sizes held in module variables (a
! plain integer and a field of a derived type) read from the input, a
! procedure whose loop runs over its dummy argument, and a loop whose exit is
! data. Each name is the source's (module.variable, main.loopK.trips), never a
! mangled symbol or a line. relax does 3 flops per interior point (m - 2 of
! them); the scan loop 2 flops per iteration.
! Usage: echo "NSTEPS NCELLS" | module_names
module settings
  implicit none
  type grid_t
    integer :: ncells
  end type grid_t
  integer :: nsteps
  type(grid_t) :: grid
end module settings

module kernels
  implicit none
contains
  subroutine relax(m, a)
    integer, intent(in) :: m
    double precision, intent(inout) :: a(:)
    integer :: i
    do i = 2, m - 1
      a(i) = 0.5d0 * (a(i - 1) + a(i + 1)) + 1.0d0
    end do
  end subroutine relax
end module kernels

program module_names
  use mpi
  use settings
  use kernels
  implicit none
  integer :: ierr, rank, step, k
  double precision, allocatable :: a(:)
  double precision :: r
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  read (*, *) nsteps, grid%ncells
  allocate (a(grid%ncells))
  a = 1.0d0
  r = 0.0d0
  do step = 1, nsteps
    call relax(grid%ncells, a)
    k = 1
    do while (a(k) > 0.5d0 .and. k < grid%ncells)
      r = r + a(k) * 2.0d0
      k = k + 1
    end do
  end do
  call mpi_allreduce(mpi_in_place, r, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
  if (rank == 0) print *, r
  call mpi_finalize(ierr)
end program module_names

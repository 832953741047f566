! A module's sizes read from a namelist deck (SNAP's input, CloverLeaf's
! clover.in read by the runtime): the READ sets them inside the Fortran
! runtime, through the addresses the namelist gives it, so no store of the
! program's sets them and the probes of stores see none. The program reads
! them outside loops: the sweep's extent, the steps.
!   namelist_sizes DECK: DECK holds &input nx=..., nsteps=... /; 3 nx nsteps
!   flops (a multiply and two adds an element a step), then the sum.
module sizes_module
  implicit none
  integer :: nx = 4, nsteps = 1
end module sizes_module

program namelist_sizes
  use mpi
  use sizes_module
  implicit none
  integer :: ierr, rank, s, u
  double precision, allocatable :: a(:)
  double precision :: total, all
  character(len=256) :: deck
  namelist /input/ nx, nsteps
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, deck)
  open(newunit=u, file=trim(deck), status='old', action='read')
  read(u, nml=input)
  close(u)
  allocate(a(nx))
  a = 1.0d0
  total = 0
  do s = 1, nsteps
    call sweep(a, total)
  end do
  call MPI_Allreduce(total, all, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, all
  deallocate(a)
  call MPI_Finalize(ierr)
contains
  subroutine sweep(a, total)
    double precision, intent(inout) :: a(:), total
    integer :: i
    do i = 1, nx
      a(i) = a(i) * 0.5d0 + 1.0d0
      total = total + a(i)
    end do
  end subroutine sweep
end program namelist_sizes

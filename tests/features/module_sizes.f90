! A module variable set at set-up from the input and read by another
! subroutine's loop, as SNAP's sizes are (test
! ProbeRun.BindsTheSizesAFunctionReadsAndPassesOn): the analyser names it
! after the module; the probes record the value assigned to it.
module sizes
  implicit none
  integer :: nx  ! marker: nx
end module sizes

subroutine setup(text)
  use sizes
  implicit none
  character(len=*), intent(in) :: text
  integer :: cells
  read (text, *) cells
  nx = 2 * cells
end subroutine setup

subroutine sweep(x)
  use sizes
  implicit none
  real(8), intent(inout) :: x(*)
  integer :: i
  do i = 1, nx
    x(i) = x(i) * 0.5d0
  end do
end subroutine sweep

program main
  use mpi
  use sizes
  implicit none
  integer :: ierr
  character(len=32) :: arg
  real(8), allocatable :: x(:)
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  call setup(arg)
  allocate(x(nx))
  x = 1.0d0
  call sweep(x)
  call sweep(x)
  call MPI_Finalize(ierr)
end program main

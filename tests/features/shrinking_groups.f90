! Groups converging one by one, in the shape of a transport solver's inner
! iterations: each iteration counts the groups still active through a call
! that writes the count into its argument, the caller's own dummy, which it
! then passes on to the sweep; the sweep runs NCOR corners of that many
! groups. `shrinking_groups NG NX`: iteration k of NG has NG - k + 1 active
! groups, NG (NG + 1) / 2 in all, 2 flops an element a group and corner.
module shrinking_groups_kernels
  implicit none
  integer, parameter :: ncor = 4
contains
  subroutine count_active(active, ntasks)
    logical, intent(in) :: active(:)
    integer, intent(out) :: ntasks
    ntasks = count(active)
  end subroutine count_active

  subroutine octsweep(g, nx, x)
    integer, intent(in) :: g, nx
    double precision, intent(inout) :: x(nx)
    integer :: i
    do i = 1, nx
      x(i) = x(i) * 0.5d0 + g ! marker: octsweep
    end do
  end subroutine octsweep

  subroutine sweep(ng_per_thrd, nx, x)
    integer, intent(in) :: ng_per_thrd, nx
    double precision, intent(inout) :: x(nx)
    integer :: cor, n
    do cor = 1, ncor
      do n = 1, ng_per_thrd ! marker: groups
        call octsweep(n, nx, x)
      end do
    end do
  end subroutine sweep

  subroutine inner(active, ng_per_thrd, nx, x)
    logical, intent(in) :: active(:)
    integer, intent(inout) :: ng_per_thrd
    integer, intent(in) :: nx
    double precision, intent(inout) :: x(nx)
    call count_active(active, ng_per_thrd)
    call sweep(ng_per_thrd, nx, x)
  end subroutine inner
end module shrinking_groups_kernels

program shrinking_groups
  use mpi
  use shrinking_groups_kernels
  implicit none
  integer :: ierr, ng, nx, it, ng_per_thrd
  logical, allocatable :: active(:)
  double precision, allocatable :: x(:)
  double precision :: total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) ng
  call get_command_argument(2, arg)
  read (arg, *) nx
  allocate(active(ng), x(nx))
  active = .true.
  x = 1.0d0
  ng_per_thrd = 0
  do it = 1, ng ! marker: iterations
    call inner(active, ng_per_thrd, nx, x)
    active(it) = .false.
  end do
  call MPI_Reduce(x(1), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program shrinking_groups

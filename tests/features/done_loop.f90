! Sweeps from all corners at once until every corner is done, in the shape of
! a transport solver's simultaneous sweeps: the flags cleared, all set at once
! where no group is active (`IF (grp(1) == 0) done = .TRUE.`, past which the
! optimiser jumps to the loop's end: the loop is reached on some paths), then
! a DO without control left by `IF (ALL(done)) EXIT` before its work. Each
! pass picks the corner with the fewest chunks swept; a corner is done after
! NCHUNK. `done_loop NCOR NCHUNK NX NCALL`: NCALL calls of NCOR * NCHUNK sweeps
! of NX elements, 2 flops an element, and one call with no active group.
module done_loop_kernels
  implicit none
  integer :: ncor
contains
  subroutine octsweep(cor, nx, x)
    integer, intent(in) :: cor, nx
    double precision, intent(inout) :: x(nx)
    integer :: i
    do i = 1, nx
      x(i) = x(i) * 0.5d0 + cor ! marker: octsweep
    end do
  end subroutine octsweep

  subroutine sweep_all(grp, nchunk, nx, x)
    integer, intent(in) :: grp(:), nchunk, nx
    double precision, intent(inout) :: x(nx)
    logical, dimension(ncor) :: done, pending
    integer, dimension(ncor) :: chunks, tags
    integer :: cor
    done = .false.
    pending = .true.
    chunks = 0
    tags = 1
    if (grp(1) == 0) done = .true. ! marker: join
    do
      if (all(done)) exit ! marker: passes
      cor = minloc(chunks, 1)
      call octsweep(cor, nx, x)
      chunks(cor) = chunks(cor) + 1
      if (chunks(cor) == nchunk) done(cor) = .true.
    end do
  end subroutine sweep_all
end module done_loop_kernels

program done_loop
  use mpi
  use done_loop_kernels
  implicit none
  integer :: ierr, nchunk, nx, ncall, k, grp(2)
  double precision, allocatable :: x(:)
  double precision :: total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) ncor
  call get_command_argument(2, arg)
  read (arg, *) nchunk
  call get_command_argument(3, arg)
  read (arg, *) nx
  call get_command_argument(4, arg)
  read (arg, *) ncall
  allocate(x(nx))
  x = 1.0d0
  grp = (/1, 2/)
  do k = 1, ncall ! marker: calls
    call sweep_all(grp, nchunk, nx, x)
  end do
  grp(1) = 0
  call sweep_all(grp, nchunk, nx, x)
  call MPI_Reduce(x(1), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program done_loop

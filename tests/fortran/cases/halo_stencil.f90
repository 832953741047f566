! use mpi: a 1-d decomposition of an m x ncols grid by columns, allocatable
! arrays with a halo column on each side. Each sweep exchanges one column of
! m doubles with each neighbour (MPI_Sendrecv, MPI_PROC_NULL past the ends),
! then a 5-point average (4 flops per point) in a subroutine that takes the
! arrays assumed-shape, then copies the interior back (0 flops).
! Usage: halo_stencil M NCOLS NSWEEPS
module stencil
  implicit none
contains
  subroutine sweep(u, v, m, ncols)
    double precision, intent(in) :: u(0:, 0:)
    double precision, intent(inout) :: v(0:, 0:)
    integer, intent(in) :: m, ncols
    integer :: i, j
    do j = 1, ncols
      do i = 1, m
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
  end subroutine sweep
end module stencil

program halo_stencil
  use mpi
  use stencil
  implicit none
  integer :: ierr, rank, nprocs, m, ncols, nsweeps, left, right, it
  double precision, allocatable :: u(:, :), v(:, :)
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read (arg, *) m
  call get_command_argument(2, arg)
  read (arg, *) ncols
  call get_command_argument(3, arg)
  read (arg, *) nsweeps
  left = rank - 1
  if (rank == 0) left = MPI_PROC_NULL
  right = rank + 1
  if (rank == nprocs - 1) right = MPI_PROC_NULL
  allocate (u(0:m + 1, 0:ncols + 1), v(0:m + 1, 0:ncols + 1))
  u = 1.0d0
  v = 0.0d0
  do it = 1, nsweeps
    call MPI_Sendrecv(u(1, ncols), m, MPI_DOUBLE_PRECISION, right, 0, u(1, 0), m, MPI_DOUBLE_PRECISION, left, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(1, 1), m, MPI_DOUBLE_PRECISION, left, 1, u(1, ncols + 1), m, MPI_DOUBLE_PRECISION, right, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call sweep(u, v, m, ncols)
    u(1:m, 1:ncols) = v(1:m, 1:ncols)
  end do
  if (rank == 0) print *, u(1, 1)
  deallocate (u, v)
  call MPI_Finalize(ierr)
end program halo_stencil

! Loop bounds passed to a kernel from fields of derived types, as CloverLeaf
! passes its tiles' extents (test ProbeRun.BindsTheArgumentsAKernelIsCalledWith):
! the kernel's dummy arguments are read through references to
! `chunk%tiles(t)%t_xmin` and the like, in memory the analyser cannot follow;
! the probes record the values the call passes. The kernel is a unit of its
! own (tile_kernel.f90), as CloverLeaf's are: no inlining shows the values.
module tiles_module
  implicit none
  type tile_type
    integer :: t_xmin, t_xmax, t_ymin, t_ymax
  end type tile_type
  type chunk_type
    type(tile_type), allocatable :: tiles(:)
  end type chunk_type
  type(chunk_type) :: chunk
  integer :: cells  ! the tiles' rows, half the first tile's columns
contains
  subroutine read_cells(text)
    character(len=*), intent(in) :: text
    integer :: n
    read (text, *) n
    cells = n
  end subroutine read_cells
end module tiles_module

program tile_arguments
  use mpi
  use tiles_module
  use kernel_module
  implicit none
  integer :: ierr, rank, tile, step, ntiles
  character(len=32) :: arg
  real(8), allocatable :: field(:, :)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  call read_cells(arg)
  ntiles = 2
  allocate(chunk%tiles(ntiles))
  ! Two tiles split along x: [1, cells] and [cells + 1, 3 * cells] (the values
  ! vary between calls), each all the rank's rows, numbered globally (each rank
  ! passes its own: the values are constant on a rank and differ between ranks).
  chunk%tiles(1)%t_xmin = 1
  chunk%tiles(1)%t_xmax = cells
  chunk%tiles(2)%t_xmin = cells + 1
  chunk%tiles(2)%t_xmax = 3 * cells
  do tile = 1, ntiles
    chunk%tiles(tile)%t_ymin = rank * cells + 1
    chunk%tiles(tile)%t_ymax = (rank + 1) * cells
  end do
  allocate(field(3 * cells, cells))
  field = 1.0d0
  do step = 1, 3
    do tile = 1, ntiles
      call smooth_kernel(chunk%tiles(tile)%t_xmin, chunk%tiles(tile)%t_xmax, &
                         chunk%tiles(tile)%t_ymin, chunk%tiles(tile)%t_ymax, field)
    end do
  end do
  call MPI_Finalize(ierr)
end program tile_arguments

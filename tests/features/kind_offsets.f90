! Halo packers in the shape of a hydrodynamics code's: the kinds of data are
! arguments (cells, vertices, x and y faces), the row offset of the kind set
! by one test of each in a unit of its own (kind_offsets_pack.f90), so the
! optimiser cannot tell which test holds: `y_inc` is assigned at four places,
! read once after them by the row loop; each call assigns it once and arrives
! at the loop once, so the mean of its assignments is the mean the loop reads.
! `kind_offsets N DEPTH NCALL`: NCALL rounds of two calls per kind, packing
! N + 2 * DEPTH + y_inc rows of DEPTH copies of one product (1 flop a row),
! y_inc 0, 1, 0, 1, and DEPTH bottom rows of N + 2 * DEPTH + x_inc products,
! x_inc 0, 1, 1, 0 (read in the loop over the depth: one value an arrival).
program kind_offsets
  use mpi
  use kind_offsets_pack
  implicit none
  integer, parameter :: cell = 1, vertex = 2, x_face = 3, y_face = 4
  integer :: ierr, n, depth, ncall, c, kind
  double precision, allocatable :: field(:), buffer(:)
  double precision :: total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) depth
  call get_command_argument(3, arg)
  read (arg, *) ncall
  allocate(field(n + 4 * depth + 2), buffer((n + 4 * depth + 2) * depth))
  field = 1.0d0
  buffer = 0.0d0
  do c = 1, ncall ! marker: rounds
    do kind = cell, y_face
      call pack_left(1, n, field, buffer, cell, vertex, x_face, y_face, depth, kind)
      call pack_bottom(1, n, field, buffer, cell, vertex, x_face, y_face, depth, kind)
    end do
  end do
  call MPI_Reduce(buffer(1), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program kind_offsets

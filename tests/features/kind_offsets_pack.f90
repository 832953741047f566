! The packers of kind_offsets.f90, a unit of its own (as a hydrodynamics
! code's kernels are) so that the optimiser cannot fold the kinds its callers
! pass into the row offset.
!
! Its row loop is on the same line as the caller's loop over the rounds, as
! loops of two units often share a line: the probes' loops at that line are
! then told apart by the file the variable the row loop reads is declared in.
!
! A kind's data sit on the cells, the vertices or the faces of the mesh:
! vertices and y faces have one row more than cells and x faces, so the
! offset is 1 for them and 0 for the others, and the halo of DEPTH rows
! around the Y_MIN .. Y_MAX rows is packed DEPTH values to a row. The kinds
! are the caller's arguments, not constants of this unit, and no test's
! outcome excludes another's for the optimiser: each of the four assignments
! stays, and the value the row loop reads is whichever came last.
!
module kind_offsets_pack
  implicit none
contains
  subroutine pack_left(y_min, y_max, field, buffer, cell_data, vertex_data, x_face_data, y_face_data, depth, &
                       field_type)
    integer, intent(in) :: y_min, y_max, cell_data, vertex_data, x_face_data, y_face_data, depth, field_type
    double precision, intent(in) :: field(:)
    double precision, intent(inout) :: buffer(:)
    integer :: j, k, y_inc
    if (field_type == cell_data) y_inc = 0
    if (field_type == vertex_data) y_inc = 1
    if (field_type == x_face_data) y_inc = 0
    if (field_type == y_face_data) y_inc = 1
    do k = y_min - depth, y_max + y_inc + depth ! marker: rows
      do j = 1, depth
        buffer(j + (k + depth - y_min) * depth) = field(k + depth) * 2.0d0
      end do
    end do
  end subroutine pack_left

  ! The halo's bottom rows: the loop over the halo's depth outside, the row
  ! loop reading the offset inside it, so that each arrival at the depth loop
  ! reads the value assigned last before it.
  subroutine pack_bottom(x_min, x_max, field, buffer, cell_data, vertex_data, x_face_data, y_face_data, depth, &
                         field_type)
    integer, intent(in) :: x_min, x_max, cell_data, vertex_data, x_face_data, y_face_data, depth, field_type
    double precision, intent(in) :: field(:)
    double precision, intent(inout) :: buffer(:)
    integer :: j, k, x_inc
    if (field_type == cell_data) x_inc = 0
    if (field_type == vertex_data) x_inc = 1
    if (field_type == x_face_data) x_inc = 1
    if (field_type == y_face_data) x_inc = 0
    do k = 1, depth
      do j = x_min - depth, x_max + x_inc + depth
        buffer(j + depth - x_min + 1 + (k - 1) * (x_max - x_min + 2 * depth + 2)) = field(j + depth) * 2.0d0
      end do
    end do
  end subroutine pack_bottom
end module kind_offsets_pack

! The packer of kind_offsets.f90, a unit of its own (as a hydrodynamics
! code's kernels are) so that the optimiser cannot fold the kinds its callers
! pass into the row offset.
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
end module kind_offsets_pack

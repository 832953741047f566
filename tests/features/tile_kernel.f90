! The kernel of tile_arguments.f90: its loop bounds are its dummy arguments,
! read through the references its caller passes.
module kernel_module
contains
  subroutine smooth_kernel(x_min, x_max, y_min, y_max, field)
    implicit none
    integer :: x_min, x_max, y_min, y_max
    real(8) :: field(x_min:x_max, y_min:y_max)
    integer :: j, k
    do k = y_min, y_max
      do j = x_min, x_max
        field(j, k) = field(j, k) * 0.5d0 + 1.0d0
      end do
    end do
  end subroutine smooth_kernel
end module kernel_module

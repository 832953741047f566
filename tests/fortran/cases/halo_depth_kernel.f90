! A boundary reflection of a given depth (CloverLeaf's update_halo_kernel
! shape): for each column, `depth` cells below the edge copy the ones above
! it. flang-19 -O2 unrolls the k loop by 2 behind a guard, which skips it at
! depth 1: there its count read as written, (2 * (depth / 2) - 2) / 2 + 1,
! wraps in 64 bits; the model counts depth / 2 trips, 0 there.
module halo_depth_kernel
  implicit none
contains
  subroutine reflect(x_min, x_max, y_max, depth, density)
    integer, intent(in) :: x_min, x_max, y_max, depth
    double precision, intent(inout) :: density(x_min - 2:x_max + 2, -1:y_max + 2)
    integer :: j, k
    do j = x_min - depth, x_max + depth
      do k = 1, depth
        density(j, 1 - k) = density(j, 0 + k)
      end do
    end do
  end subroutine reflect
end module halo_depth_kernel

! Loops the optimiser guards, whose counts wrap 64 bits at the sizes the
! guards skip them at (SNAP's shapes):
! - scatter_rows: row g gets g - 1 values, a strided store the optimiser
!   unrolls by 4; the unrolled loop's count, (4 (k div 4) - 4) div 4 + 1,
!   is about 2^62 for rows g < 5, which its guard skips.
! - add_moments: moments 2..cmom of each cell, an array statement flang
!   vectorises; with one moment (cmom = 1) the vector body never runs.
! By hand: scatter_rows does 3 flops per row g > 1 (1 / (g - 1) and the two
! products of the value it stores), 3 (ng - 1); add_moments 2 (cmom - 1) nx.
module guarded_kernels
  implicit none
contains
  subroutine scatter_rows(ng, s, sigs)
    integer, intent(in) :: ng
    real(8), intent(inout) :: s(ng, ng)
    real(8), intent(in) :: sigs(ng)
    integer :: g
    real(8) :: t
    do g = 1, ng
      if (g > 1) then
        t = 1.0d0 / real(g - 1, 8)
        s(g, 1:(g - 1)) = 0.1d0 * sigs(g) * t
      end if
    end do
  end subroutine scatter_rows

  subroutine add_moments(nx, cmom, qom, csm, fluxm)
    integer, intent(in) :: nx, cmom
    real(8), intent(inout) :: qom(cmom - 1, nx)
    real(8), intent(in) :: csm(cmom - 1, nx), fluxm(cmom - 1, nx)
    qom = qom + csm * fluxm
  end subroutine add_moments
end module guarded_kernels

program guarded_counts
  use mpi
  use guarded_kernels
  implicit none
  integer :: ng, nx, cmom, ierr
  character(len=16) :: arg
  real(8), allocatable :: s(:, :), sigs(:), qom(:, :), csm(:, :), fluxm(:, :)
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) ng
  call get_command_argument(2, arg)
  read (arg, *) nx
  call get_command_argument(3, arg)
  read (arg, *) cmom
  allocate (s(ng, ng), sigs(ng), qom(cmom - 1, nx), csm(cmom - 1, nx), fluxm(cmom - 1, nx))
  s = 0
  sigs = 1
  qom = 0
  csm = 1
  fluxm = 2
  call scatter_rows(ng, s, sigs)
  call add_moments(nx, cmom, qom, csm, fluxm)
  print *, s(ng, 1)
  call MPI_Finalize(ierr)
end program guarded_counts

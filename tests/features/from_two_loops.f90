! A recurrence from 2 beside a loop from 1 over one size (SNAP's
! setup_angle: `DO m = 2, nang` fills the cosines from the first; the sweeps
! use all nang), the size a module variable read from the input, also the
! extent of an array statement. flang unrolls the recurrence by 4: trips
! (n - 1) / 4 and a remainder of (n - 1) mod 4, n - 1 in all: the size less
! one, as the loop from 1's trips are the size, and the array statement's
! extent with it (test ProbeRun.BindsASizeBesideALoopFromTwo).
! `from_two_loops N CALLS`: CALLS recurrences and scalings, then one sum.
module from_two_angles
  implicit none
  integer :: nang
end module from_two_angles

subroutine setup(text)
  use from_two_angles
  implicit none
  character(len=*), intent(in) :: text
  read (text, *) nang
end subroutine setup

! 1 flop a trip: n - 1 adds.
subroutine fill(mu, dm)
  use from_two_angles
  implicit none
  real(8), intent(inout) :: mu(*)
  real(8), intent(in) :: dm
  integer :: m
  mu(1) = 0.5d0
  do m = 2, nang  ! marker: from_two
    mu(m) = mu(m - 1) + dm
  end do
end subroutine fill

! 1 flop a trip: n adds.
subroutine add_up(mu, total)
  use from_two_angles
  implicit none
  real(8), intent(in) :: mu(*)
  real(8), intent(inout) :: total
  integer :: m
  do m = 1, nang  ! marker: from_one
    total = total + mu(m)
  end do
end subroutine add_up

! n multiplies, vectorised: a use of the size no loop probe reads as a loop of it.
subroutine scale(mu)
  use from_two_angles
  implicit none
  real(8), intent(inout) :: mu(nang)
  mu = 2.0d0 * mu
end subroutine scale

program main
  use mpi
  use from_two_angles
  implicit none
  integer :: ierr, calls, c
  character(len=32) :: arg
  real(8), allocatable :: mu(:)
  real(8) :: total
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  call setup(arg)
  call get_command_argument(2, arg)
  read (arg, *) calls
  allocate(mu(nang))
  total = 0.0d0
  do c = 1, calls
    call fill(mu, 1.0d0 / c)
    call scale(mu)
  end do
  call add_up(mu, total)
  if (total < 0.0d0) print *, total
  call MPI_Finalize(ierr)
end program main

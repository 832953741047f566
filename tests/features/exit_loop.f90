! A named DO loop without control, left by EXIT, whose body starts with array
! statements over another dimension (SNAP's fixup loop): per cell the loop
! halves x from 2**mod(c, 3) until it is below 1, so it starts 1, 2 or 3
! passes (2 on the mean for NCELL a multiple of 3); each pass computes fx over
! NANG angles, adds w * e to it where W is not 0 (a data test before an array
! statement, inside the loop), and halves x before the EXIT, and updates pc
! after it, which the last pass skips. `exit_loop NCELL NANG W`
module exit_loop_kernels
  implicit none
contains
  subroutine cells(ncell, nang, start, w, e, pc, out)
    integer, intent(in) :: ncell, nang
    double precision, intent(in) :: start(ncell), w, e(nang)
    double precision, intent(inout) :: pc(nang), out(nang)
    double precision :: fx(nang), x
    integer :: c
    do c = 1, ncell
      x = start(c)
      passes: do ! marker: statement
        fx(:) = 2.0d0 * pc(:) - e(:) ! marker: passes
        if (w /= 0.0d0) fx(:) = fx(:) + w * e(:) ! marker: guarded
        x = x * 0.5d0
        if (x < 1.0d0) exit passes
        pc(:) = pc(:) * 0.5d0 + e(:) ! marker: after_exit
      end do passes
      out(:) = out(:) + fx(:)
    end do
  end subroutine cells
end module exit_loop_kernels

program exit_loop
  use mpi
  use exit_loop_kernels
  implicit none
  integer :: ierr, ncell, nang, c
  character(len=32) :: arg
  double precision, allocatable :: start(:), e(:), pc(:), out(:)
  double precision :: w, total
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) ncell
  call get_command_argument(2, arg)
  read (arg, *) nang
  call get_command_argument(3, arg)
  read (arg, *) w
  allocate (start(ncell), e(nang), pc(nang), out(nang))
  do c = 1, ncell
    start(c) = dble(2 ** mod(c, 3))
  end do
  e(:) = 1.0d0
  pc(:) = 0.5d0
  out(:) = 0.0d0
  call cells(ncell, nang, start, w, e, pc, out)
  call MPI_Reduce(out(1), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program exit_loop

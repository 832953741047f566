! Loops left from inside their body, and loops flang gives no line, in the
! shape of a transport solver's iterations: outer iterations until a residual
! halving each time falls under TOL (EXIT after the work), inner iterations
! per outer until the outer's limit (EXIT after the work), a corner loop of
! NCOR trips around a group loop left at its first empty group (EXIT before
! the work), and MINVAL/MAXVAL of a rank-2 array each outer (loops without a
! line), then a convergence check of each group that skips the empty one by
! CYCLE. `loop_exits NCOR TOL`: the limits are 5, 4, 3, ... and grp_act and
! active hold 2 groups then 0 (NCOR >= 2), so for TOL = 0.1 (4 outers) 5 + 4 + 3 + 2 = 14 inners make
! 14 * NCOR * 2 sweeps of N elements, 2 flops an element, and 4 * 2 checks of
! 2 flops an element.
module loop_exits_kernels
  implicit none
  integer :: ncor
contains
  subroutine octsweep(g, jd, x)
    integer, intent(in) :: g, jd
    double precision, intent(inout) :: x(:)
    integer :: i
    do i = 1, size(x)
      x(i) = x(i) * 0.5d0 + (g + jd)
    end do
  end subroutine octsweep

  subroutine df_calc(x, d)
    double precision, intent(in) :: x(:)
    double precision, intent(inout) :: d
    integer :: i
    do i = 1, size(x)
      d = d + x(i) * 0.25d0 ! marker: df
    end do
  end subroutine df_calc

  subroutine sweep(grp_act, x)
    integer, intent(in) :: grp_act(:)
    double precision, intent(inout) :: x(:)
    integer :: cor, n, g
    do cor = 1, ncor ! marker: corners
      do n = 1, size(grp_act) ! marker: groups
        g = grp_act(n)
        if (g == 0) exit
        call octsweep(g, cor, x)
      end do
    end do
  end subroutine sweep
end module loop_exits_kernels

program loop_exits
  use mpi
  use loop_exits_kernels
  implicit none
  integer, parameter :: n = 16, m1 = 5, m2 = 7
  integer :: ierr, otno, inno, limit(30), grp_act(3), active(3), k
  double precision :: x(n), y(m1, m2), tol, residual, s, d, total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) ncor
  call get_command_argument(2, arg)
  read (arg, *) tol
  do otno = 1, 30
    limit(otno) = max(6 - otno, 1)
  end do
  grp_act = (/1, 2, 0/)
  active = (/1, 2, max(0, 2 - ncor)/)  ! no third group for NCOR >= 2
  x = 1.0d0
  y = 2.0d0
  s = 0.0d0
  d = 0.0d0
  residual = 1.0d0
  do otno = 1, 30 ! marker: outers
    do inno = 1, 30 ! marker: inners
      call sweep(grp_act, x)
      if (inno >= limit(otno)) exit
    end do
    s = s + minval(y) + maxval(y) ! marker: reductions
    do k = 1, size(active) ! marker: checks
      if (active(k) == 0) cycle
      call df_calc(x, d)
    end do
    residual = residual * 0.5d0
    if (residual < tol) exit
  end do
  call MPI_Reduce(s + x(1) + d, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program loop_exits

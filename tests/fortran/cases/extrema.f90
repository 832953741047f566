! MINVAL and MAXVAL of real arrays through flang's runtime (flang-19 at -O2
! calls it for these; SUM, DOT_PRODUCT, MINLOC it inlines): a convergence
! check's smallest and largest values, of doubles, of the doubles a mask
! selects and of reals. The runtime's extrema compare, they do no floating-point arithmetic;
! the program's own flops are 2 n a step, on n doubles.
! Usage: extrema N STEPS
program extrema
  implicit none
  double precision, allocatable :: a(:)
  real, allocatable :: c(:)
  double precision :: lo, hi, total
  real :: small
  character(len=32) :: word
  integer :: n, steps, i, s
  call get_command_argument(1, word)
  read (word, *) n
  call get_command_argument(2, word)
  read (word, *) steps
  allocate (a(n), c(n))
  c = 0.5
  total = 0
  do s = 1, steps
    do i = 1, n
      a(i) = 0.5d0 * i + s
    end do
    lo = minval(a)
    hi = maxval(a, mask=a > 1.0d0)
    small = minval(c)
    total = total + lo + hi + small
  end do
  print *, total
end program extrema

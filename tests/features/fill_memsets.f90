! Memory filled with a constant by loops the optimiser makes memsets of (loop
! idiom), so no probe at the start of the pipeline sees a call: a module's
! allocatable array set to zero every step (`a = 0`, a column at a time; its
! extents the array's descriptor holds), and a CHARACTER buffer assigned a
! word of the command line TRIMmed, blank-padded to its length (SNAP's zeroed
! arrays, CloverLeaf's deck parser), and two arrays of N and 2 N values
! zeroed by two statements on one line (SNAP's `mu = zero; wmu = zero`). By
! hand at N rows and a word of W characters: 8 N bytes a column, 3 columns a
! step, 4 steps; 64 - W bytes of padding; 12 N bytes a memset of the line of two.
! Usage: fill_memsets N WORD
module fill_memsets_data
  implicit none
  double precision, allocatable :: a(:, :), b(:), c(:)
contains
  subroutine clear()
    a = 0.0d0  ! marker: fill
  end subroutine clear

  subroutine clear_two()
    b = 0.0d0; c = 0.0d0  ! marker: two
  end subroutine clear_two
end module fill_memsets_data

program fill_memsets
  use mpi
  use fill_memsets_data
  implicit none
  integer :: n, steps, s, i, ierr
  double precision :: total
  character(len=64) :: line
  character(len=32) :: arg, word
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, word)
  steps = 4
  allocate (a(n, 3), b(n), c(2 * n))
  call clear_two()
  total = 0.0d0
  do s = 1, steps
    call clear()
    do i = 1, n
      a(i, 2) = a(i, 2) + s * 0.5d0
    end do
    total = total + a(n, 2)
  end do
  line = trim(word)  ! marker: pad
  print *, total + b(n) + c(2 * n), ichar(line(64:64))
  call MPI_Finalize(ierr)
end program fill_memsets

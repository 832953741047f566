! Each rank sends its row to the root every step, the root receives every
! other rank's (SNAP's output_send, in a unit of its own: `CALL psend(root,
! sproc, ...)`): the rank the send wrapper compares its peer with is a
! module's variable that only MPI_COMM_RANK writes, through its address, and
! that this unit only hands on by reference, outside loops, never reads
! itself. Its value once MPI_COMM_RANK returns is each rank's; at 1 rank the
! root sends nothing. The root receives from each rank in a table (SNAP's
! output_recv, given a rank from MPI_CART_RANK: a peer the analyser cannot
! compute, whose assumed default is a real neighbour), itself skipped.
! The module rank_by_reference_comm.f90 comes first.
! Usage: rank_by_reference STEPS
module rank_by_reference_rows
  use rank_by_reference_comm
  implicit none
contains
  subroutine send_row(row, tag)
    double precision, intent(in) :: row(8)
    integer, intent(in) :: tag
    call psend(0, sproc, 8, row, comm_space, tag)
  end subroutine send_row

  subroutine recv_row(proc, row, tag)
    integer, intent(in) :: proc, tag
    double precision, intent(inout) :: row(8)
    call precv(proc, sproc, 8, row, comm_space, tag)
  end subroutine recv_row
end module rank_by_reference_rows

program rank_by_reference
  use rank_by_reference_comm
  use rank_by_reference_rows
  implicit none
  integer :: steps, s, p, ierr, rank, nranks
  integer, allocatable :: order(:)
  double precision :: row(8)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) steps
  call pinit()
  allocate(order(nranks))
  do p = 1, nranks
    order(p) = p - 1
  end do
  row = 1.0d0
  do s = 1, steps
    call send_row(row, s)
    if (rank == 0) then
      do p = 1, nranks
        call recv_row(order(p), row, s)
      end do
    end if
  end do
  if (rank == 0) print *, row(1)
  call MPI_Finalize(ierr)
end program rank_by_reference

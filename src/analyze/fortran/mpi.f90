! perfcast's `mpi` module for flang: Open MPI's mpif.h (names, handles,
! constants) as a module flang can read. Open MPI's own mpi.mod is gfortran's
! format, which flang cannot read; this one has mpif.h's contents and, like
! Open MPI's ignore_tkr module, no explicit interfaces. mpi_f08 is not covered.
module mpi
  include 'mpif.h'
end module mpi

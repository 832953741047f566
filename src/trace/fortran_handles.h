// What the Fortran wrappers need from Open MPI's Fortran bindings: its
// sentinels (MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE are the addresses of common
// blocks) and status conversion. References are weak, so a C program, where
// the bindings are not loaded, still loads the tracer.
#pragma once

#include <mpi.h>

#include <cstddef>

extern "C" {
extern MPI_Fint mpi_fortran_in_place_ __attribute__((weak));
extern MPI_Fint mpi_fortran_status_ignore_ __attribute__((weak));
extern MPI_Fint mpi_fortran_statuses_ignore_ __attribute__((weak));
}

namespace perfcast::trace::fortran {

static_assert(sizeof(MPI_Fint) == sizeof(int), "v-collective counts are read as C ints");

// A Fortran status is MPI_STATUS_SIZE integers: as many as fill an MPI_Status.
inline constexpr std::size_t kStatusInts = (sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint);

inline bool is_in_place(const void* buffer) { return &mpi_fortran_in_place_ && buffer == &mpi_fortran_in_place_; }
inline bool is_status_ignore(const MPI_Fint* status) {
  return &mpi_fortran_status_ignore_ && status == &mpi_fortran_status_ignore_;
}
inline bool is_statuses_ignore(const MPI_Fint* statuses) {
  return &mpi_fortran_statuses_ignore_ && statuses == &mpi_fortran_statuses_ignore_;
}

inline MPI_Status status_to_c(const MPI_Fint* status) {
  MPI_Status c{};
  PMPI_Status_f2c(status, &c);
  return c;
}

}  // namespace perfcast::trace::fortran

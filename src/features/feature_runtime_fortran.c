/* The feature runtime's Fortran entry points. Open MPI's Fortran bindings
 * (libmpi_mpifh: mpi_init_, mpi_finalize_) call the C PMPI_ functions
 * directly, so a Fortran program's MPI_Init and MPI_Finalize never pass
 * through the C wrappers of feature_runtime.c: these take the Fortran names
 * in the program and call Open MPI's pmpi_ ones. In an object of their own,
 * so that a C program, which never names them, does not pull them (and
 * libmpi_mpifh) into its link. */
#include <mpi.h>

#define EXPORT __attribute__((visibility("default")))

void perfcast_features_started(void);
void perfcast_features_finishing(void);

/* Open MPI's Fortran bindings, in libmpi_mpifh. */
void pmpi_init_(MPI_Fint* ierr);
void pmpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr);
void pmpi_finalize_(MPI_Fint* ierr);

EXPORT void mpi_init_(MPI_Fint* ierr) {
  pmpi_init_(ierr);
  if (*ierr == MPI_SUCCESS) perfcast_features_started();
}

EXPORT void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  pmpi_init_thread_(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) perfcast_features_started();
}

EXPORT void mpi_finalize_(MPI_Fint* ierr) {
  perfcast_features_finishing();
  pmpi_finalize_(ierr);
}

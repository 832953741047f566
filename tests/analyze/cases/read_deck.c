/* An input reader whose normal path only communicates (a broadcast and a
   barrier, no loop), after a check that returns an error code and a check that
   stops the run (MPI_Finalize and exit): the normal path is the run's work, not
   its way out. With nx >= 1: one bcast and one barrier; with nx < 1 none. main:
   nx = 8 argc, then one allreduce after a loop. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Deck {
  int units, nx;
  double dt;
};

__attribute__((noinline)) int read_deck(struct Deck *in, const char *units, int nx, int rank) {
  if (nx <= 0) {
    if (rank == 0) printf("ERROR: no cells\n");
    return 1;
  }
  if (strcmp(units, "lj") == 0) in->units = 0;
  else if (strcmp(units, "metal") == 0) in->units = 1;
  else {
    printf("Unknown units '%s'\n", units);
    MPI_Finalize();
    exit(0);
  }
  in->nx = nx;
  in->dt = 0.005 * nx;
  MPI_Bcast(&in->dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct Deck in;
  if (read_deck(&in, argc > 1 ? argv[1] : "lj", argc * 8, 0)) {
    MPI_Finalize();
    exit(0);
  }
  double all = 0;
  for (int i = 0; i < in.nx; i++) all += in.dt * i;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all < 0;
}

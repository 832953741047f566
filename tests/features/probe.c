/* A small MPI program whose features are known: the feature tests build it
 * with perfcast's feature compiler, run it on real ranks and compare the
 * record with what the code below does. The test finds each feature's line
 * by the marker comment at its end, so lines may move. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int doubled_steps; /* marker: global */

/* Options parsed into a struct through a pointer, as the apps do: each field
 * is a feature named at its declaration. */
struct probe_options {
  int steps;    /* marker: field_steps */
  double scale; /* marker: field_scale */
  long ranks;   /* marker: field_ranks */
  int flags[2]; /* an array: not a scalar field, no feature */
};

static void parse_options(int argc, char** argv, struct probe_options* o) {
  o->steps = atoi(argc > 1 ? argv[1] : "10"); /* the first field: no offset in the address */
  o->scale = 0.5 * o->steps;
  o->flags[1] = 1;
}

static double work(int steps) {
  double acc = 0;
  for (int i = 0; i < steps; ++i) { /* marker: loop */
    acc += 1.0 / (i + 1);
  }
  return acc;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = atoi(argc > 1 ? argv[1] : "10"); /* marker: steps */
  doubled_steps = 2 * steps;
  struct probe_options options;
  parse_options(argc, argv, &options);
  options.ranks = size; /* a field of a local struct object */
  if (options.steps != steps) return 1;
  double total = work(steps);

  int message[256] = {0};
  int count = steps < 256 ? steps : 256;
  if (rank == 0) { /* marker: branch */
    for (int peer = 1; peer < size; ++peer) MPI_Send(message, count, MPI_INT, peer, 0, MPI_COMM_WORLD); /* marker: send */
  } else {
    MPI_Recv(message, count, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double sum = 0;
  MPI_Allreduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* marker: allreduce */
  if (rank == 0) printf("steps %d sum %.3f\n", steps, sum);
  MPI_Finalize();
  return 0;
}

/* A grid level's size read through the level a function is given (a
 * multigrid's levels, as AMG's and HPCG's set-up read each matrix's sizes):
 * `scale` doubles a level's values with a loop the vectoriser widens, so the
 * model's counts are expressions of the field, which the probes of the
 * source's loop do not bind. The stores into the field differ level by
 * level; the reads through `level` are what the model reads: three on the
 * fine level and one on the coarse.
 * `field_reads FINE` (FINE a multiple of 4, at least 8). */
#include <mpi.h>
#include <stdlib.h>

struct level {
  long cells;
  double *values;
};

/* 1 flop a cell */
static __attribute__((noinline)) void scale(struct level *level) {
  const long n = level->cells; /* marker: read */
  for (long i = 0; i < n; ++i) level->values[i] = 2.0 * level->values[i];
}

static struct level make(long cells) {
  struct level l;
  l.cells = cells;
  l.values = calloc((size_t)cells, sizeof(double));
  return l;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long fine = argc > 1 ? atol(argv[1]) : 64;
  struct level levels[2] = {make(fine), make(fine / 4)};
  for (int k = 0; k < 3; ++k) scale(&levels[0]);
  scale(&levels[1]);
  double sum = levels[0].values[0] + levels[1].values[0], total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(levels[0].values);
  free(levels[1].values);
  MPI_Finalize();
  return total > 0;
}

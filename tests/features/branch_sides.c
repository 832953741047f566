/* Two data-dependent branches, each with a heavy side taken 3 times in 4 and
 * a light one. At -O2 the optimiser inverts the first (`l->coarser != 0`
 * becomes `== 0` with its successors swapped) and keeps the second as written,
 * so a taken fraction bound to the side the condition names in the source
 * would price the light side 3 times in 4. Four levels of N, 3N/4, N/2 and
 * N/4 elements, all but the last with a coarser one (a multigrid's shape),
 * each level's size read from its struct as HPCG's kernels read theirs (the
 * three that run the loop average a whole 3N/4 for N a multiple of 16, which
 * the loop unrolled by 4 needs); w[i] > 0.5 for three i in four.
 * `branch_sides N` */
#include <mpi.h>
#include <stdlib.h>

struct level {
  const double *x;
  const struct level *coarser;
  long n;
};

__attribute__((noinline)) double smooth(const struct level *l) {
  const long len = l->n;
  double acc = 0.0;
  if (l->coarser != 0) { /* marker: inverted */
    for (long i = 0; i < len; ++i) acc += l->x[i] * 3.0 + 1.0; /* marker: inverted_heavy */
  } else {
    acc = l->x[0] * 2.0; /* marker: inverted_light */
  }
  return acc;
}

__attribute__((noinline)) double weigh(const double *w, long len) {
  double acc = 0.0;
  for (long i = 0; i < len; ++i) {
    if (w[i] > 0.5) { /* marker: kept */
      for (int j = 0; j < 8; ++j) acc = acc * 0.5 + w[j]; /* marker: kept_heavy */
    } else {
      acc = acc + 1.0; /* marker: kept_light */
    }
  }
  return acc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = atol(argv[1]); /* N: required */
  double *x = malloc((size_t)n * sizeof(double));
  for (long i = 0; i < n; ++i) x[i] = i % 4 == 0 ? 0.0 : 1.0;
  struct level levels[4];
  for (int k = 0; k < 4; ++k) {
    levels[k].x = x;
    levels[k].coarser = k + 1 < 4 ? &levels[k + 1] : 0;
    levels[k].n = n * (4 - k) / 4;
  }
  double acc = 0.0;
  for (int k = 0; k < 4; ++k) acc += smooth(&levels[k]);
  acc += weigh(x, n);
  double all = 0.0;
  MPI_Reduce(&acc, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x);
  MPI_Finalize();
  return all < 0.0;
}

/* Loops the optimiser made W iterations at a time, called with sizes below W.
 *
 * fill_swaps: m = 2 * (c->need[0] + c->need[1] + c->need[2]) ints stored
 * (miniMD's Comm::setup); clang tests the half, a value the model has no name
 * for, so the guard before the loop and the vectoriser's minimum-iterations
 * check are no conditions of the model (a guessed branch, a run-time check):
 * 4 m bytes stored, 8 of them a vector at a time.
 *
 * diag_scale: y[i] = x[i] / diag[i] over a local size read from a structure
 * (hypre's HYPRE_ParCSRDiagScale), 0 or 1 on coarse levels. n flops.
 *
 * gather_scale: y[i] = x[i] / diag[col[i]] over a 64-bit size, unrolled by 2
 * at run time; the gather's distinct bytes are a parameter whose default is
 * the loop's count. n flops. */
#include <mpi.h>
#include <stdlib.h>

struct comm {
  int need[3];
  int *list;
};

struct vector {
  long long size;
  double *data;
};

__attribute__((noinline)) void fill_swaps(struct comm *c, const double *prd) {
  for (int d = 0; d < 3; d++) c->need[d] = (int)(1.0 / prd[d] + 1);
  int m = 2 * (c->need[0] + c->need[1] + c->need[2]);
  c->list = malloc(m * sizeof(int));
  for (int i = 0; i < m; i++) c->list[i] = 1000;
}

__attribute__((noinline)) void diag_scale(const struct vector *v, const double *diag, const double *x, double *y) {
  int local_size = (int)v->size;
  for (int i = 0; i < local_size; i++) y[i] = x[i] / diag[i];
}

__attribute__((noinline)) void gather_scale(const struct vector *v, const long long *col, const double *diag,
                                            const double *x, double *y) {
  long long local_size = v->size;
  for (long long i = 0; i < local_size; i++) y[i] = x[i] / diag[col[i]];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  struct comm c;
  double prd[3] = {1.0 / (n / 2 + 0.5), 2.0, 2.0}; /* need = n / 2 + 1, 1, 1: m = n + 6 for even n */
  struct vector v = {n, calloc((size_t)n + 8, sizeof(double))};
  double *x = calloc(2 * (size_t)n + 8, sizeof(double)), *y = calloc(2 * (size_t)n + 8, sizeof(double));
  long long *col = calloc((size_t)n + 8, sizeof(long long));
  fill_swaps(&c, prd);
  diag_scale(&v, v.data, x, y);
  gather_scale(&v, col, v.data, x, y);
  MPI_Finalize();
  return (int)y[0];
}

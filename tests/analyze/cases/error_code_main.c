/* Error codes summed over calls and checked after them, as HPCG's multigrid
 * does (`ierr += kernel(...)` in a loop, then `if (ierr != 0) return ierr;`):
 * prepare() (error_code_kernels.c, a unit of its own) always returns 0 after
 * its loop, so the check after it never leaves and the smoothing after it
 * runs on every run; relax() is the same in this unit. count_negative()
 * returns how many values are negative, which only the data says, so the
 * check after it stays a branch a run decides.
 * smooth: k n flops in prepare, 2 k n in the sweeps, 2 n in relax, 2 n after
 * it. finish: n flops of scaling on the runs where no value is negative. */
#include <mpi.h>
#include <stdlib.h>

int prepare(double *v, int n);
int count_negative(const double *v, int n);

__attribute__((noinline)) static int relax(double *v, int n) {
  for (int i = 0; i < n; i++) v[i] = v[i] * 0.25 + 0.5;
  return 0;
}

__attribute__((noinline)) int smooth(double *v, int n, int k) {
  int ierr = 0;
  for (int s = 0; s < k; s++) ierr += prepare(v, n);
  if (ierr != 0) return ierr;
  for (int s = 0; s < k; s++)
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5 + 1.0;
  ierr += relax(v, n);
  if (ierr != 0) return ierr;
  for (int i = 0; i < n; i++) v[i] = v[i] * 0.75 + 2.0;
  return 0;
}

__attribute__((noinline)) int finish(double *v, int n, int k) {
  int ierr = 0;
  for (int s = 0; s < k; s++) ierr += count_negative(v, n);
  if (ierr != 0) return ierr;
  for (int i = 0; i < n; i++) v[i] *= 3.0;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]), k = atoi(argv[2]);
  double *v = calloc((size_t)n, sizeof(double));
  int ierr = smooth(v, n, k);
  if (ierr == 0) ierr = finish(v, n, k);
  double total = 0;
  MPI_Allreduce(&v[0], &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(v);
  MPI_Finalize();
  return ierr;
}

// An orphaned worksharing loop over atoms that gathers their neighbours'
// positions, its size a global, called from a parallel region (miniMD's force
// kernels over their neighbour lists): 2 flops a neighbour within the cutoff
// (2.5 * x[j] + sum),
// the neighbours of each atom read from memory. The gather's footprint per run
// of the atom loop is a thread's block, which names the thread: no parameter's
// default can.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int n = 1000;
int per = 8;
double cut = 1e30;

__attribute__((noinline)) static void forces(const double* x, const int* neigh, const int* numneigh, double* f) {
#pragma omp for
  for (int i = 0; i < n; ++i) {
    double sum = 0;
#pragma nounroll
    for (int k = 0; k < numneigh[i]; ++k) {
      const double xj = x[neigh[i * per + k]];
      if (xj < cut) sum = 2.5 * xj + sum;
    }
    f[i] = sum;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1) n = atoi(argv[1]);
  double* x = malloc(n * sizeof(double));
  double* f = malloc(n * sizeof(double));
  int* neigh = malloc((size_t)n * per * sizeof(int));
  int* numneigh = malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) x[i] = 0.5 * i, numneigh[i] = per;
  for (int i = 0; i < n * per; ++i) neigh[i] = (7 * i) % n;
#pragma omp parallel
  forces(x, neigh, numneigh, f);
  printf("%g\n", f[n / 2]);
  MPI_Finalize();
  return 0;
}

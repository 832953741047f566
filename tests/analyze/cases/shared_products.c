/* A pair kernel over a neighbour list (the shape of a molecular-dynamics
 * force loop with a half list): each pair's force is added to one atom and
 * subtracted from the other, `fi += d * force; f[j] -= d * force`. clang
 * writes each update as a multiply-add (llvm.fmuladd); a target without FMA
 * instructions (x86-64's baseline) multiplies and adds, and computes the
 * product both updates share once. Per pair: the difference, its square, the
 * divide, the shared product, the add and the subtract: 6 flops; per atom
 * one more add. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void pair_forces(int n, int nneigh, const int *neigh, const double *x, double *f) {
  for (int i = 0; i < n; i++) {
    double fi = 0;
    for (int k = 0; k < nneigh; k++) {
      int j = neigh[i * nneigh + k];
      double d = x[i] - x[j];
      double force = 1.0 / (d * d);
      fi += d * force;
      f[j] -= d * force;
    }
    f[i] += fi;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, nneigh = argc > 2 ? atoi(argv[2]) : 8;
  int *neigh = malloc(sizeof(int) * (size_t)n * (size_t)nneigh);
  double *x = malloc(sizeof(double) * (size_t)n), *f = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) x[i] = i;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < nneigh; k++) neigh[i * nneigh + k] = (i + k + 1) % n;
  pair_forces(n, nneigh, neigh, x, f);
  printf("%g\n", f[0]);
  free(neigh);
  free(x);
  free(f);
  return 0;
}

/* Counts a C caller passes by pointer: &n of a local it stores right before
 * the call, and a pointer to a struct field it stores; then the same size
 * through a pointer whose address escapes to a global, which a function the
 * caller calls writes between the store and the call (it must stay a
 * parameter). By hand, per step s: work 2 (nx + 2 s) flops, relax 2 (nx + s),
 * work again 2 x (what bump leaves, nx + 2 s + 1).
 * Usage: by_reference NX STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct grid {
  int nx, rows;
};

int *kept; /* where the escaping size's address is kept */

__attribute__((noinline)) void work(const int *n, double *a) {
  for (int i = 0; i < *n; ++i) a[i] = a[i] * 0.5 + 1.0;
}

__attribute__((noinline)) void relax(const int *count, double *a) {
  for (int i = 0; i < *count; ++i) a[i] = a[i] * a[i] + 2.0;
}

__attribute__((noinline)) void keep(int *p) { kept = p; }
__attribute__((noinline)) void bump(void) { *kept += 1; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nx = atoi(argv[1]), steps = atoi(argv[2]);
  struct grid g = {nx, 0};
  double *a = calloc((size_t)nx + 2 * (size_t)steps + 2, sizeof(double));
  int escaped = 0;
  keep(&escaped);
  for (int s = 0; s < steps; ++s) {
    int n = nx + 2 * s;
    work(&n, a);
    g.rows = g.nx + s;
    relax(&g.rows, a);
    escaped = nx + 2 * s;
    bump();
    work(&escaped, a);
  }
  printf("%f\n", a[0]);
  MPI_Finalize();
  return 0;
}

/* Mutual recursion: sweep_down calls sweep_up, which calls sweep_down again,
 * one element fewer each time, until one is left (a -> b -> a). Neither is
 * inlined, so the analysed code keeps the cycle of two functions; with
 * -DSWEEP_DOWN_INLINED the optimiser inlines sweep_down into main and into
 * sweep_up, so main holds one level of the recursion itself. */
#include <mpi.h>
#include <stdlib.h>

#ifdef SWEEP_DOWN_INLINED
#define DOWN_INLINE
#else
#define DOWN_INLINE __attribute__((noinline))
#endif

__attribute__((noinline)) double sweep_up(double *x, long n);

DOWN_INLINE double sweep_down(double *x, long n) {
  double s = 0.0;
  for (long i = 0; i < n; ++i) s += x[i] * x[i];
  return n > 1 ? s + sweep_up(x, n - 1) : s;
}

__attribute__((noinline)) double sweep_up(double *x, long n) {
  double s = 0.0;
  for (long i = 0; i < n; ++i) s += 3.0 * x[i];
  return n > 1 ? s + sweep_down(x, n - 1) : s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 100;
  double *x = calloc((size_t)n, sizeof(double));
  double s = sweep_down(x, n);
  free(x);
  MPI_Finalize();
  return s < 0.0;
}

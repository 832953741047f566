/* Several branches or loops at one source line: `a && b` and `a || b` on
 * data, each a line the front end tests twice; a range test the optimiser
 * merges into one branch; and a double loop written on one line whose trips
 * are read from the data. With N a multiple of 12: a[i] > 0.5 for i % 4 != 0
 * (3 in 4), b[i] > 0.5 for i % 3 == 0 (1 in 3), so `a && b` holds for 1 i in
 * 4 and `a || b` for 5 in 6; c[i] = i % 4, so 0.5 < c[i] < 2.5 for 1 in 2;
 * the double loop runs N / 4 rows of (row % 3) + 1 elements each.
 * `same_line N` */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) double both(const double *a, const double *b, long len) {
  double acc = 0.0;
  for (long i = 0; i < len; ++i) {
    if (a[i] > 0.5 && b[i] > 0.5) { /* marker: and */
      for (int j = 0; j < 8; ++j) acc = acc * 0.5 + a[j]; /* marker: and_then */
    }
  }
  return acc;
}

__attribute__((noinline)) double either(const double *a, const double *b, long len) {
  double acc = 0.0;
  for (long i = 0; i < len; ++i) {
    if (a[i] > 0.5 || b[i] > 0.5) { /* marker: or */
      for (int j = 0; j < 4; ++j) acc = acc * 0.5 + b[j]; /* marker: or_then */
    } else {
      acc = acc + 1.0; /* marker: or_else */
    }
  }
  return acc;
}

__attribute__((noinline)) double range(const double *c, long len) {
  double acc = 0.0;
  for (long i = 0; i < len; ++i) {
    if (c[i] > 0.5 && c[i] < 2.5) { /* marker: range */
      for (int j = 0; j < 8; ++j) acc = acc * 0.5 + c[j]; /* marker: range_then */
    }
  }
  return acc;
}

__attribute__((noinline)) double rows(const double *x, const double *more, const long *extent) {
  double acc = 0.0;
  for (long i = 0; more[i] > 0.0; ++i) for (long j = 0; j < extent[i]; ++j) acc = acc * 0.5 + x[j]; /* marker: rows */
  return acc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = atol(argv[1]); /* N: required */
  double *a = malloc((size_t)n * sizeof(double));
  double *b = malloc((size_t)n * sizeof(double));
  double *c = malloc((size_t)n * sizeof(double));
  double *more = malloc((size_t)n * sizeof(double));
  long *extent = malloc((size_t)n * sizeof(long));
  for (long i = 0; i < n; ++i) {
    a[i] = i % 4 != 0 ? 1.0 : 0.0;
    b[i] = i % 3 == 0 ? 1.0 : 0.0;
    c[i] = (double)(i % 4);
    more[i] = i < n / 4 ? 1.0 : -1.0;
    extent[i] = i % 3 + 1;
  }
  double acc = both(a, b, n) + either(a, b, n) + range(c, n);
  acc += rows(c, more, extent);
  double all = 0.0;
  MPI_Reduce(&acc, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(a);
  free(b);
  free(c);
  free(more);
  free(extent);
  MPI_Finalize();
  return all < 0.0;
}

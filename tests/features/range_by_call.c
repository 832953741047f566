// Locals a call writes through their addresses (`find_range(marks, n,
// &first, &last)`, hypre's partition of a loop's range among threads): the
// loop and the message after the call run what it wrote, which no store in
// the caller assigns. The probes read them once the call returns.
#include <mpi.h>
#include <stdlib.h>

// The marked stretch of `marks`: from the first mark to just past the last.
__attribute__((noinline)) void find_range(const char* marks, int n, int* first, int* last) {
  *first = 0;
  while (*first < n && !marks[*first]) ++*first;
  *last = n;
  while (*last > *first && !marks[*last - 1]) --*last;
}

// range_by_call N: the points from N/4 to N - N/8 are marked
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  char* marks = calloc((size_t)n, 1);
  double* v = calloc((size_t)n, sizeof(double));
  for (int i = n / 4; i < n - n / 8; ++i) marks[i] = 1;
  int first, last;
  find_range(marks, n, &first, &last);
  for (int i = first; i < last; ++i) v[i] = v[i] * 0.5 + 1.0;
  MPI_Bcast(v + first, last - first, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

// A quicksort in the shape of a library's sort (hypre_qsort0): partition
// around the middle element, then sort the left part and, by a tail call,
// the right part. The optimiser makes that tail call a loop around the
// function's body; each partition pass weighs its elements (2 flops each).
// `tail_recursion N`: N doubles in a fixed shuffled order, sorted once.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double weighed = 0;

static void swap(double* v, int i, int j) {
  double t = v[i];
  v[i] = v[j];
  v[j] = t;
}

void sort_part(double* v, int left, int right) {
  if (left >= right) return;
  swap(v, left, (left + right) / 2);
  int last = left;
  for (int i = left + 1; i <= right; i++) {
    weighed += v[i] * 0.5;
    if (v[i] < v[left]) swap(v, ++last, i);
  }
  swap(v, left, last);
  sort_part(v, left, last - 1);
  sort_part(v, last + 1, right);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* v = malloc(sizeof(double) * (size_t)n);
  unsigned state = 12345;
  for (int i = 0; i < n; i++) {
    state = state * 1103515245u + 12345u;
    v[i] = (double)(state >> 8);
  }
  sort_part(v, 0, n - 1);
  double total = 0;
  MPI_Reduce(&weighed, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(v);
  MPI_Finalize();
  return 0;
}

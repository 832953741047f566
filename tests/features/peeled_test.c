// An inverse map in the shape of a mesh code's (PENNANT's initInvMap): the
// (point, corner) pairs sorted by point, each corner linked to the next one
// of its point. The test `i == 0` makes the optimiser peel the first
// iteration, so `p == pp` is in the model twice, in the loop and in the
// peeled copy, where it compares the first pair's points: values a loop
// reads, which no probe measures. The pairs are ordered first by a sort
// inlined from a header (peeled_sort.h, as PENNANT's std::sort), so the
// function's code comes from two files. Each link weighs its corner (2 flops).
// `peeled_test N PASSES`: N pairs, points shared by runs of 1 to 3 corners.
#include <mpi.h>
#include <stdlib.h>

#include "peeled_sort.h"

__attribute__((noinline)) void link_corners(struct pair* pairs, int n, int* first, int* next, double* w,
                                            const double* v) {
  order_pairs(pairs, n);
  for (int i = 0; i < n; ++i) {
    int p = pairs[i].first;
    int c = pairs[i].second;
    if (i == 0)
      first[p] = c;
    else {
      int pm = pairs[i - 1].first;
      if (p != pm) first[p] = c;
    }
    next[c] = -1;
    if (i + 1 != n) {
      int pp = pairs[i + 1].first;
      int cp = pairs[i + 1].second;
      if (p == pp) {  // linked
        next[c] = cp;
        w[c] += 0.5 * v[cp];
      }
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int passes = argc > 2 ? atoi(argv[2]) : 3;
  struct pair* pairs = malloc(sizeof(struct pair) * (size_t)n);
  int* first = malloc(sizeof(int) * (size_t)n);
  int* next = malloc(sizeof(int) * (size_t)n);
  double* w = calloc((size_t)n, sizeof(double));
  double* v = malloc(sizeof(double) * (size_t)n);
  int point = 0;
  for (int i = 0; i < n; ++i) {
    point += i % 3 == 0;  // runs of 3 corners a point
    pairs[i].first = point;
    pairs[i].second = i;
    v[i] = i % 5;
  }
  for (int s = 0; s < passes; ++s) link_corners(pairs, n, first, next, w, v);
  double sum = 0, total = 0;
  for (int i = 0; i < n; ++i) sum += w[i];
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(pairs), free(first), free(next), free(w), free(v);
  MPI_Finalize();
  return 0;
}

/* Probes in hot loops: a call-free loop nest with branches in its inner loop
 * (a matrix assembly's shape), a loop calling an index helper without
 * loops, a call-free loop left early by a break, all
 * called from a loop that calls functions. The feature test compares every
 * count with what the code does, and counts the instructions the probes add
 * to the nest. Lines are found by the marker comments. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Three entries per row but at the ends: the branches run every inner iteration. */
__attribute__((noinline)) long assemble(int n, int* col) {
  long nnz = 0;
  for (int j = 0; j < n; ++j) {          /* marker: outer */
    for (int i = 0; i < n; ++i) {        /* marker: inner */
      if (i > 0) col[nnz++] = j * n + i - 1; /* marker: left */
      col[nnz++] = j * n + i;
      if (i < n - 1) col[nnz++] = j * n + i + 1; /* marker: right */
    }
  }
  return nnz;
}

/* A loop that calls an index helper without loops: a call-free nest all the same. */
static int at(int n, int j, int i) { return j * n + i; }

__attribute__((noinline)) long odd_rows(int n) {
  long odd = 0;
  for (int j = 0; j < n; ++j) { /* marker: rows */
    if (at(n, j, 0) % 2) odd++; /* marker: odd */
  }
  return odd;
}

/* The index of the first v in a, or n: the loop is left from its body. */
__attribute__((noinline)) int find(const int* a, int n, int v) {
  int i;
  for (i = 0; i < n; ++i) { /* marker: search */
    if (a[i] == v) break;   /* marker: found */
  }
  return i;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argc > 1 ? argv[1] : "10");
  int repeats = atoi(argc > 2 ? argv[2] : "3");
  int* col = malloc(sizeof(int) * 3 * (size_t)n * (size_t)n);
  long nnz = 0;
  int where = 0;
  for (int r = 0; r < repeats; ++r) { /* marker: repeats */
    nnz += assemble(n, col);
    where += find(col, 3 * n, n + 1);
    nnz += odd_rows(n);
  }
  long total = 0;
  MPI_Allreduce(&nnz, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("nnz %ld found at %d\n", total, where);
  free(col);
  MPI_Finalize();
  return 0;
}

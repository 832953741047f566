/* memset and memcpy of lengths read from memory: row k of a table holds
 * lens[k] = (k % 3 + 1) * N bytes, so the lengths the analyser sees are loads
 * it cannot express. Per rank, 6 rows: each zeroed (mean 2N bytes a memset)
 * and half of it copied (mean N bytes a memcpy); a memset on a path no small
 * input takes is never reached. `memory_calls N` */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { kRows = 6 };

__attribute__((noinline)) void clear_row(char *row, const long *lens, int k) {
  memset(row, 0, (size_t)lens[k]); /* marker: memset */
}

__attribute__((noinline)) void copy_half(char *dst, const char *src, const long *lens, int k) {
  memcpy(dst, src, (size_t)lens[k] / 2); /* marker: memcpy */
}

__attribute__((noinline)) void clear_huge(char *row, const long *lens) {
  if (lens[0] > 1000000) memset(row, 1, (size_t)lens[1]); /* marker: unreached */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = atol(argv[1]); /* N: required */
  long lens[kRows];
  for (int k = 0; k < kRows; ++k) lens[k] = (k % 3 + 1) * n;
  char *row = malloc((size_t)(3 * n));
  char *copy = malloc((size_t)(3 * n));
  long sum = 0;
  for (int k = 0; k < kRows; ++k) { /* marker: rows */
    clear_row(row, lens, k);
    copy_half(copy, row, lens, k);
    sum += copy[0];
  }
  clear_huge(row, lens);
  long all = 0;
  MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  free(row);
  free(copy);
  MPI_Finalize();
  return all != 0;
}

// Values that differ between ranks and hold still on each: a 1-d split of
// `rows` rows over the ranks, uneven (the first rows % size ranks hold one
// more), and each rank's neighbours (-1 past the ends), kept in a table the
// analyser does not follow. Each step exchanges a halo with each neighbour
// there is (the test one rank never passes and another always does),
// relaxes the rank's own rows, scales them walking a list of them, damps
// them in chunks of two rows (a rank's last chunk one row where its rows are
// odd), and halves each chunk's cells and the halo with one kernel (called
// from two places, the chunks' bounds are no sizes of its loop's own, so
// their means are rounded).
#include <mpi.h>
#include <stdlib.h>

struct part {
  int left, right;  // neighbours' ranks, -1 where there is none
  int begin, end;   // the rank's rows
  int chunks;       // the rows in chunks of at most 2, the last one short
  int chunk_first[8], chunk_last[8];
};

__attribute__((noinline)) void split(struct part* parts, int size, int rows) {
  int begin = 0;
  for (int r = 0; r < size; ++r) {
    parts[r].left = r - 1;
    parts[r].right = r + 1 < size ? r + 1 : -1;
    parts[r].begin = begin;
    begin += rows / size + (r < rows % size);
    parts[r].end = begin;
    parts[r].chunks = 0;
    for (int i = parts[r].begin; i < parts[r].end && parts[r].chunks < 8; i += 2, ++parts[r].chunks) {
      parts[r].chunk_first[parts[r].chunks] = i;
      parts[r].chunk_last[parts[r].chunks] = i + 2 < parts[r].end ? i + 2 : parts[r].end;
    }
  }
}

// A chunk's rows [first, last) damped.
__attribute__((noinline)) void damp(double* u, int first, int last, int width) {
  for (int i = first; i < last; ++i)
    for (int j = 0; j < width; ++j) u[(i + 1) * width + j] *= 0.75;
}

// The cells [first, last) halved.
__attribute__((noinline)) void halve(double* u, int first, int last) {
  for (int i = first; i < last; ++i) u[i] *= 0.5;
}

__attribute__((noinline)) int has(const struct part* p, int which) { return (which ? p->right : p->left) >= 0; }

// rank_values ROWS WIDTH: 20 steps
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rows = argc > 1 ? atoi(argv[1]) : 10, width = argc > 2 ? atoi(argv[2]) : 100;
  struct part* parts = malloc((size_t)size * sizeof *parts);
  split(parts, size, rows);
  const struct part* mine = &parts[rank];
  const int left = mine->left, right = mine->right;
  const int begin = mine->begin, end = mine->end;
  double* u = calloc((size_t)(rows + 2) * (size_t)width, sizeof(double));
  double* halo = calloc((size_t)width, sizeof(double));
  // The rank's rows again as a list ended by -1: a loop whose exit is data.
  int* cells = malloc((size_t)(end - begin + 1) * sizeof *cells);
  for (int i = begin; i < end; ++i) cells[i - begin] = i;
  cells[end - begin] = -1;
  for (int step = 0; step < 20; ++step) {
    if (has(mine, 0)) MPI_Sendrecv_replace(halo, width, MPI_DOUBLE, left, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (has(mine, 1)) MPI_Sendrecv_replace(halo, width, MPI_DOUBLE, right, 0, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = begin; i < end; ++i)
      for (int j = 1; j < width - 1; ++j) u[(i + 1) * width + j] = 0.25 * (u[i * width + j] + u[(i + 2) * width + j]) + 0.5 * halo[j];
    for (int c = 0; cells[c] >= 0; ++c)
      for (int j = 0; j < width; ++j) u[(cells[c] + 1) * width + j] *= 0.5;
    for (int c = 0; c < mine->chunks; ++c) damp(u, mine->chunk_first[c], mine->chunk_last[c], width);
    for (int c = 0; c < mine->chunks; ++c) halve(u, (mine->chunk_first[c] + 1) * width, (mine->chunk_last[c] + 1) * width);
    halve(halo, 0, width);
  }
  MPI_Finalize();
  return u[width] > 1;
}

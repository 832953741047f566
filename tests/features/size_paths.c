// Work only a run of several processes does (`if (size > 1)`: a halo
// exchange whose width the command line gives, read in the function that
// exchanges): a probe run on 1 process never reads the width, so binds it for
// 1 process only; a prediction at 2 ranks from that run is refused, and a
// probe run on 2 processes measures it.
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void exchange(double* v, int rank, int size, const char* arg) {
  int halo = atoi(arg);
  for (int i = 0; i < halo; ++i) v[i] = v[i] * 0.5 + 1.0;
  MPI_Sendrecv_replace(v, halo, MPI_DOUBLE, (rank + 1) % size, 0, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
}

// size_paths N HALO: N points a rank, HALO of them exchanged with the neighbours
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 2 ? atoi(argv[1]) : 100;
  double* v = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; ++i) v[i] += 1.0;
  if (size > 1) exchange(v, rank, size, argc > 2 ? argv[2] : "1");
  free(v);
  MPI_Finalize();
  return 0;
}

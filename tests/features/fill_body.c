// Markers cleared before each pass, in the shape of an interpolation's
// P_marker: a loop filling an array with -1 whose body is on the line after
// its `for`, which the optimiser makes a memset at the body's line, over a
// count of the points an earlier loop found (a length the source cannot say).
// `fill_body N NPASS`: NPASS passes, each clearing the markers of the N / 2
// even points, then summing the weights of the points whose marker is still
// clear (1 flop each).
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100, npass = argc > 2 ? atoi(argv[2]) : 3;
  int* marker = malloc(sizeof(int) * (size_t)n);
  double* w = malloc(sizeof(double) * (size_t)n);
  int count = 0;
  for (int i = 0; i < n; i++) {
    w[i] = i % 7;
    if (i % 2 == 0) count++;
  }
  double s = 0;
  for (int p = 0; p < npass; p++) {
    for (int i = 0; i < count; i++)
    { marker[i] = -1; } // marker: fill
    for (int i = 0; i < count; i++)
      if (marker[i] < 0) s += w[i];
  }
  double total = 0;
  MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(marker);
  free(w);
  MPI_Finalize();
  return 0;
}

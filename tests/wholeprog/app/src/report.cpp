// The report, in C++: a sum reduced to rank 0 and printed with iostream; its
// scratch copy made with new[] and delete[].
#include <mpi.h>

#include <iostream>

#include "app.h"

extern "C" void report(const double* u, int n, int rank) {
  double* copy = new double[n];
  double local = 0;
  for (int i = 0; i < n; ++i) {
    copy[i] = u[i + 1];
    local += copy[i];
  }
  delete[] copy;
  double total = 0;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::cout << "sum " << total << std::endl;
}

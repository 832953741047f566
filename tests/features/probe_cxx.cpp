// The C++ side of the feature tests: built with bin/perfcast-mpicxx, its
// record must hold only this file's features, none from the C++ library's
// templates or MPI's headers.
#include <mpi.h>

#include <cstdlib>
#include <numeric>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int length = argc > 1 ? std::atoi(argv[1]) : 5;
  std::vector<double> values(length, 1.0);
  double sum = std::accumulate(values.begin(), values.end(), 0.0);
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return sum > 0 ? 0 : 1;
}

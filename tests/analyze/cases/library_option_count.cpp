// A C++ library constructor inlined into main with a count from the command
// line: `std::vector<double> v(n, 0.5)`, the constructor's `__n` the option
// `n` widened, which the optimiser folds with its default into one select.
// The library's variable is no name a user knows: no parameter is named after it.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<double> v(n, 0.5);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i] * v[i];
  std::printf("%g\n", sum);
  MPI_Finalize();
  return 0;
}

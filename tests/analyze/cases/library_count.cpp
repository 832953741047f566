// A C++ library constructor inlined into the caller: `std::vector<double>
// bytes(levels)` fills levels doubles, the constructor's count `__n` the
// caller's `levels` widened. The count is the caller's argument, which its
// call gives: no parameter named after the library's variable.
#include <mpi.h>

#include <vector>

__attribute__((noinline)) double per_level(int levels) {
  std::vector<double> bytes(levels);
  bytes[0] = 1.0;
  double sum = 0;
  for (int l = 0; l < levels; l++) sum += bytes[l] * 2.0;
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double sum = per_level(4);
  MPI_Finalize();
  return sum < 0;
}

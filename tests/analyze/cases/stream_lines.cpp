// Loops whose other exits never return: `out << x << std::endl` checks the
// stream's facet and throws bad_cast where it has none, `v.at(i)` throws
// out_of_range. The throws leave the loop for code that ends the program;
// the loop's count is its own test's, `rows`, not a parameter of its own.
// And the guard before such a loop, whose calls may unwind to a cleanup: a
// count from a time budget (HPCG's `numberOfCgSets = int(time / worst) + 1`),
// which the optimiser tests as `int(time / worst) < 0`.
#include <mpi.h>

#include <iostream>
#include <vector>

__attribute__((noinline)) void write_rows(std::ostream& out, const double* values, int rows) {
  for (int r = 0; r < rows; ++r) out << values[r] * 2.0 << std::endl;
}

__attribute__((noinline)) double sum_rows(const std::vector<double>& values, int rows) {
  double sum = 0;
  for (int r = 0; r < rows; ++r) sum += values.at(r) * 0.5;
  return sum;
}

__attribute__((noinline)) double timed_sets(std::ostream& out, double budget, double per_set) {
  std::vector<double> times(4, 0.0);  // destroyed when a call in the loop throws
  const int sets = static_cast<int>(budget / per_set) + 1;
  double* norms = new double[sets];
  for (int k = 0; k < sets; ++k) {
    norms[k] = k * 0.5;
    out << norms[k] << std::endl;
  }
  times[0] = norms[0];
  delete[] norms;
  return times[0];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rows = argc > 1 ? std::atoi(argv[1]) : 8;
  std::vector<double> values(rows > 0 ? rows : 1, 1.5);
  write_rows(std::cout, values.data(), rows);
  const double sum = sum_rows(values, rows);
  timed_sets(std::cout, argc > 2 ? std::atof(argv[2]) : 0.0, 1.0);
  MPI_Finalize();
  return sum < 0;
}

// A C++ vector zeroed by an inline helper in a solver's loop (HPCG's
// ZeroVector: `for (i = 0; i < v.localLength; ++i) v.values[i] = 0.0`), the
// vector passed by reference to a call in the same loop, so its length is
// read again every pass and is no parameter there: the optimiser makes the
// fill loop a memset whose length the analyser can only name
// (`ZeroVector.memset1.bytes`). At the start of the pipeline, where the probes
// go in, the loop still keeps its index in its own stack slot.
//   zero_vectors N SOLVES: a vector of N doubles zeroed SOLVES times; 2 N + 1
//   flops a solve (the sweep's add and multiply, then its sum).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

struct Vector {
  int localLength;
  double* values;
};

inline void ZeroVector(Vector& v) {
  const int localLength = v.localLength;
  double* vv = v.values;
  for (int i = 0; i < localLength; ++i) vv[i] = 0.0;  // fill
}

__attribute__((noinline)) double sweep(Vector& x, int solve) {
  double s = 0;
  for (int i = 0; i < x.localLength; ++i) {
    x.values[i] += 0.5 * solve;
    s += x.values[i];
  }
  return s;
}

__attribute__((noinline)) double solve_all(Vector& x, int solves) {
  double total = 0;
  for (int k = 0; k < solves; ++k) {
    ZeroVector(x);
    total += sweep(x, k);
  }
  return total;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Vector x;
  x.localLength = argc > 1 ? std::atoi(argv[1]) : 100;
  const int solves = argc > 2 ? std::atoi(argv[2]) : 4;
  x.values = new double[x.localLength];
  const double total = solve_all(x, solves);
  double sum = 0;
  MPI_Allreduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::printf("%g\n", sum);
  delete[] x.values;
  MPI_Finalize();
  return 0;
}

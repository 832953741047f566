// Velocities cleared with `std::fill` of a zero vector (PENNANT's Hydro::init
// over a chunk of points): `__fill_a1`'s loop calls struct_fill_vec.h's
// operator= at the start of the pipeline, and the optimiser, once it has
// inlined the assignment and the zeros, makes the loop a memset at the
// assignment's line, in the header. A probe run measures the loop: n points
// of 16 bytes a call.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "struct_fill_vec.h"

__attribute__((noinline)) void clear(double2* pu, const int* len, int chunk) {
  std::fill(pu, pu + len[chunk], double2(0., 0.));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  double2* pu = new double2[n];
  int len[2] = {n, n / 2};
  double sum = 0;
  for (int step = 0; step < 3; step++) {
    clear(pu, len, 0);
    pu[step % n].x += 1.5;
    for (int i = 0; i < n; i++) sum += pu[i].x;
  }
  std::printf("%g\n", sum);
  delete[] pu;
  MPI_Finalize();
  return 0;
}

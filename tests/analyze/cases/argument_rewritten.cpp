// An argument a call rewrites through a reference on one side of a branch
// (HPCG's GenerateGeometry: `npx` passed by value, then
// ComputeOptimalShapeXYZ(size, npx, ...) given it as an `int&` when it is 0):
// after the branch it is no longer what the caller passed.
#include <mpi.h>

#include <cstdlib>

__attribute__((noinline)) void shape(int size, int& npx) { npx = size; }

__attribute__((noinline)) double grid(int size, int nx, int npx) {
  if (npx <= 0) shape(size, npx);
  const int local = nx / npx;
  double s = 0;
  for (int i = 0; i < local; ++i) s += i * 0.5;  // 2 flops an element
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double s = grid(size, argc > 1 ? std::atoi(argv[1]) : 64, 0);
  MPI_Finalize();
  return s < 0;
}

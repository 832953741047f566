// A field whose last store the probes cannot see, in the shape of HPCG's
// process grid (test ProbeRun.LeavesAFieldWhoseAddressEscapesRequired): the
// input's reader zeroes it, then another function writes the real value
// through an `int&` it is given the field as; a third divides by it and
// loops over it. The probes see only the zero.
#include <mpi.h>

#include <cstdlib>

struct Params {
  int nx;   // marker: nx
  int npx;  // marker: npx
};

__attribute__((noinline)) static void read_params(Params& params, int nx) {
  params.nx = nx;
  params.npx = 0;  // computed later from the ranks
}

__attribute__((noinline)) static void compute_shape(int size, int& npx) { npx = size; }

__attribute__((noinline)) static void set_up_grid(Params& params, int size) { compute_shape(size, params.npx); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Params params;  // marker: params
  read_params(params, argc > 1 ? std::atoi(argv[1]) : 64);
  set_up_grid(params, size);
  const int local = params.nx / params.npx;  // each rank's share: a loop bound divided by it
  double* x = static_cast<double*>(std::calloc(local, sizeof(double)));
  for (int i = 0; i < local; ++i) x[i] *= 0.5;  // 1 flop an element
  double sum = x[0], all = 0;
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::free(x);
  MPI_Finalize();
  return all < 0;
}

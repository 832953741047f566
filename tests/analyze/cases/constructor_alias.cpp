// `new Grid(n)` and `delete` of a class defined in another unit
// (constructor_alias_grid.cpp): calls of the aliases C1 and D1, which are the
// constructor's and the destructor's code. setup does 2n flops and 2
// allreduces; the run, MPI_Init and MPI_Finalize besides, with n = 1000 argc.
#include <mpi.h>

#include "constructor_alias.h"

__attribute__((noinline)) double setup(long n) {
  Grid *grid = new Grid(n);
  double total = grid->total;
  delete grid;
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double total = setup(argc * 1000L);
  MPI_Finalize();
  return total < 0;
}

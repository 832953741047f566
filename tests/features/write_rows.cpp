// Rows gathered from every rank written to a file, each ended by `std::endl`
// (PENNANT's WriteXY): the count is a local a call summed through its address
// (`Parallel::globalSum(gnumz)`), which every call of the loop might write, so
// its exit depends on data; and the optimiser ends the loop's body in endl's
// flush, inlined from <ostream>, where the loop's ID was lost. The loop is the
// `for`'s, at its own test's line, where the probes count it: n rows a rank.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

__attribute__((noinline)) void global_sum(int* x) {
  MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

__attribute__((noinline)) void write_rows(const std::string& name, int n) {
  int total = n;
  global_sum(&total);
  std::ofstream ofs(name.c_str());
  ofs << "# row" << std::endl;
  for (int z = 0; z < total; ++z) {  // marker: rows
    ofs << (z + 1) << std::endl;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  write_rows("/dev/null", n);
  MPI_Finalize();
  return 0;
}

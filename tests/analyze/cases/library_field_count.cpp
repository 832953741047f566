// A C++ library constructor inlined into a method: `std::vector<std::vector<int>>
// edges(nump)` makes nump empty vectors, the constructor's count `__n` the
// class's field `nump` widened. The count is that field, which a user knows
// and a probe run sees read: no parameter named after the library's variable.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct Mesh {
  int nump = 0;
  double total = 0;
  void init();
};

__attribute__((noinline)) void Mesh::init() {
  std::vector<std::vector<int> > edges(nump);
  for (int p = 0; p < nump; ++p) edges[p].push_back(p);
  for (int p = 0; p < nump; ++p) total += 0.5 * edges[p][0];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Mesh m;
  m.nump = argc > 1 ? std::atoi(argv[1]) : 100;
  m.init();
  std::printf("%g\n", m.total);
  MPI_Finalize();
  return 0;
}

// A C++ library constructor inlined into a method: `std::vector<std::vector<int>>
// edges(nump)` makes nump empty vectors (a memset of 24 bytes each), the
// constructor's count `__n` the class's field `nump` widened, which nothing
// else reads. The count is that field, which a user knows and a probe run
// sees read: no parameter named after the library's variable.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

class Mesh {
 public:
  int nump = 0, nums = 0;
  int *mapsp = nullptr;
  double total = 0;
  void init();
};

__attribute__((noinline)) void Mesh::init() {
  std::vector<std::vector<int> > edges(nump);
  for (int s = 0; s < nums; ++s) edges[mapsp[s]].push_back(s);
  for (int s = 0; s < nums; ++s) total += 0.5 * edges[mapsp[s]].front();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Mesh m;
  m.nump = argc > 1 ? std::atoi(argv[1]) : 100;
  m.nums = 4 * m.nump;
  m.mapsp = new int[m.nums];
  for (int s = 0; s < m.nums; ++s) m.mapsp[s] = s / 4;
  m.init();
  std::printf("%g\n", m.total);
  delete[] m.mapsp;
  MPI_Finalize();
  return 0;
}

// A loop over a field of a class, in the shape of a molecular-dynamics code's
// periodic wrap: `Atoms::wrap`, a method whose `#pragma omp for` runs over
// `nlocal`, called by each thread of a parallel region once a step. clang
// captures the bound in a variable of its own (`.capture_expr.`), so the
// loop's count is the class's field as read through `this`: named, and
// recorded by the probes, as a struct's field is.
// `class_field_loop N`: three steps' shifts of N coordinates, 1 flop each.
#include <mpi.h>

#include <cstdlib>

class Atoms {
 public:
  int nlocal = 0;
  double* x = nullptr;
  void wrap(double box);
};

void Atoms::wrap(double box) {
#pragma omp for
  for (int i = 0; i < nlocal; i++)  // marker: wrap
    x[i] += box;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Atoms atoms;
  atoms.nlocal = argc > 1 ? std::atoi(argv[1]) : 100;
  atoms.x = new double[atoms.nlocal];
  for (int i = 0; i < atoms.nlocal; i++) atoms.x[i] = i % 2 ? -1.0 : 1.0;
#pragma omp parallel
  for (int s = 0; s < 3; s++) atoms.wrap(10.0);
  delete[] atoms.x;
  MPI_Finalize();
  return 0;
}

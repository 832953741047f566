// Loops over a field of a class, in the shape of a molecular-dynamics code's
// steps: `Atoms::wrap`, a method whose `#pragma omp for` runs over `nlocal`,
// and `halve`, a function given the object by reference (as a thermostat's
// `temperature(Atom& atom)` is), each called by every thread of a parallel
// region once a step. clang captures each bound in a variable of its own
// (`.capture_expr.`), so the loops' counts are the class's field as read
// through `this` and through the reference: named, and recorded by the
// probes, as a struct's field is.
// `class_field_loop N`: three steps' shifts and halvings of N coordinates,
// 1 flop each.
#include <mpi.h>

#include <cstdlib>

class Atoms {
 public:
  int nlocal = 0;
  double *x = nullptr, *v = nullptr;
  void wrap(double box);
};

void Atoms::wrap(double box) {
#pragma omp for
  for (int i = 0; i < nlocal; i++)  // marker: wrap
    x[i] += box;
}

void halve(Atoms& atoms) {
#pragma omp for
  for (int i = 0; i < atoms.nlocal; i++)  // marker: halve
    atoms.v[i] = atoms.x[i] * 0.5;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Atoms atoms;
  atoms.nlocal = argc > 1 ? std::atoi(argv[1]) : 100;
  atoms.x = new double[atoms.nlocal];
  atoms.v = new double[atoms.nlocal];
  for (int i = 0; i < atoms.nlocal; i++) atoms.x[i] = i % 2 ? -1.0 : 1.0;
#pragma omp parallel
  for (int s = 0; s < 3; s++) {
    atoms.wrap(10.0);
    halve(atoms);
  }
  delete[] atoms.x;
  delete[] atoms.v;
  MPI_Finalize();
  return 0;
}

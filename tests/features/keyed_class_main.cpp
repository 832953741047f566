// A thermostat's loop over a class's field in a unit that does not hold the
// class's key function (miniMD's Thermo::temperature(Atom& atom)): `#pragma
// omp for` over `atoms.nlocal`, whose bound clang keeps in `.capture_expr.`.
// The bound is the field, `atoms.nlocal`, named with the class's fields as the
// other unit describes them; the probes record its reads here too.
// `keyed_class N`: three steps' halvings of N coordinates, 1 flop each.
#include <mpi.h>

#include <cstdlib>

#include "keyed_class.h"

void halve(Atoms& atoms) {
#pragma omp for
  for (int i = 0; i < atoms.nlocal; i++)  // marker: halve
    atoms.v[i] = atoms.x[i] * atoms.mass();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Atoms atoms;
    atoms.nlocal = argc > 1 ? std::atoi(argv[1]) : 100;
    atoms.x = new double[atoms.nlocal];
    atoms.v = new double[atoms.nlocal];
    for (int i = 0; i < atoms.nlocal; i++) atoms.x[i] = i % 2 ? -1.0 : 1.0;
#pragma omp parallel
    for (int s = 0; s < 3; s++) halve(atoms);
  }
  MPI_Finalize();
  return 0;
}

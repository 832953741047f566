// A size a loop runs a line of, in the shape of a neighbour list's bin
// stencil: its reach is the cutoff over the bin size, rounded up (`next`, set
// at two places), its loops `for (i = -next; i <= next; i++)` run
// 2 * next + 1 trips, and a ring walk `for (k = 1; k < next; k++)` next - 1.
// The source cannot say the reach; the probes' trips give it.
// `stencil_reach CUT BIN CALLS`: CALLS stencils, 2 flops a cell and 2 a
// step of the walk.
#include <mpi.h>
#include <stdlib.h>

// A cell's weight, 1 flop (not inlined, as a function of another file would
// not be, nor then its loops unrolled).
__attribute__((noinline)) static double cell(int i, int j, double bin) { return (double)(i * i + j * j) * bin; }

// The reach, too, is a variable of its own function.
__attribute__((noinline)) static double stencil(double cut, double bin) {
  int next = (int)(cut / bin);
  if (next * bin < cut) next++;
  double s = 0;
  for (int j = -next; j <= next; j++)     // marker: rows
    for (int i = -next; i <= next; i++)  // marker: columns
      s += cell(i, j, bin);
  for (int k = 1; k < next; k++)  // marker: ring
    s += k * bin;
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double cut = argc > 1 ? atof(argv[1]) : 2.8, bin = argc > 2 ? atof(argv[2]) : 1.3;
  const int calls = argc > 3 ? atoi(argv[3]) : 2;
  double s = 0;
  for (int c = 0; c < calls; c++) s += stencil(cut + c * 0.001, bin);
  double total = 0;
  MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

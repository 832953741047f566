/* A stencil's rows of cells, -reach .. reach each way, the reach computed
 * from a cutoff over a bin size (a value the model names but whose unrolled
 * form it cannot state). clang -O2 unrolls the cell loop by 4 at run time
 * with its remainder before the unrolled loop; instcombine folds the
 * remainder's count, (2 * reach + 1) mod 4, into 2 * (reach & 1) + 1, and the
 * cell index only computes a weight, it addresses no memory. Each cell is one
 * multiply-add: 2 flops; the reach costs a divide and a multiply. */
#include <stdlib.h>

__attribute__((noinline)) double stencil(double cut, double bin) {
  int reach = (int)(cut / bin);
  if (reach * bin < cut) reach++;
  double s = 0;
  for (int j = -reach; j <= reach; j++)
    for (int i = -reach; i <= reach; i++) s += (double)(i * i + j * j) * bin;
  return s;
}

int main(int argc, char **argv) {
  const double cut = argc > 1 ? atof(argv[1]) : 2.8;
  return stencil(cut, 1.3) > 0 ? 0 : 1;
}

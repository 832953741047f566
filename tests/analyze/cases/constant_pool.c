/* A polynomial of degree 23 in each element (Horner): 24 distinct constants, more than
   x86-64's 16 vector registers hold beside the loop's own values, so the machine code
   reads some from the constant pool every iteration, accesses the IR does not have.
   In the IR: 46 flops, one 8-byte load and one 8-byte store per element. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void poly(int n, double *restrict y, const double *restrict x) {
  for (int i = 0; i < n; i++) {
    double t = x[i];
    y[i] = (((((((((((((((((((((((0.5 * t + 0.33333333333333331) * t + 0.25) * t + 0.20000000000000001) * t + 0.16666666666666666) * t + 0.14285714285714285) * t + 0.125) * t + 0.1111111111111111) * t + 0.10000000000000001) * t + 0.090909090909090912) * t + 0.083333333333333329) * t + 0.076923076923076927) * t + 0.071428571428571425) * t + 0.066666666666666666) * t + 0.0625) * t + 0.058823529411764705) * t + 0.055555555555555552) * t + 0.052631578947368418) * t + 0.050000000000000003) * t + 0.047619047619047616) * t + 0.045454545454545456) * t + 0.043478260869565216) * t + 0.041666666666666664) * t + 0.040000000000000001);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
  poly(n, y, x);
  MPI_Finalize();
  return (int)y[0];
}

// A kernel called through a virtual function, its class chosen by the input
// (as a C++ code picks a force field or a solver from its input file): the
// call loads its target from the object's vtable. Per step, `scale` reads
// each element once and does 2 flops with it (a multiply, an add), `poly` 4
// (two multiplies, two adds), the step loop 1 (the sum of the results), so
// steps * (2n + 1) flops with scale and steps * (4n + 1) with poly. The base
// class's apply is never called: its vtable has no object here.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

struct Kernel {
  virtual ~Kernel() = default;
  virtual double apply(const double *x, long n) = 0;
};

struct Scale : Kernel {
  double apply(const double *x, long n) override {
    double s = 0;
    for (long i = 0; i < n; i++) s += 2.0 * x[i];
    return s;
  }
};

struct Poly : Kernel {
  double apply(const double *x, long n) override {
    double s = 0;
    for (long i = 0; i < n; i++) s += x[i] * (x[i] * 3.0 + 1.0);
    return s;
  }
};

__attribute__((noinline)) Kernel *make_kernel(int style) {
  if (style == 1) return new Poly;
  return new Scale;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long n = argc > 1 ? std::atol(argv[1]) : 1000;
  const int style = argc > 2 ? std::atoi(argv[2]) : 0;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 10;
  double *x = new double[n];
  for (long i = 0; i < n; i++) x[i] = 0.5;
  Kernel *kernel = make_kernel(style);
  double sum = 0;
  for (int step = 0; step < steps; step++) sum += kernel->apply(x, n);
  std::printf("%g\n", sum);
  delete kernel;
  delete[] x;
  MPI_Finalize();
  return 0;
}

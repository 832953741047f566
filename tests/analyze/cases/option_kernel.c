/* An option field tested inside an iteration loop selects between two
 * kernels right after a loop over the same rows (cg's preconditioner choice).
 * clang-19 copies the test into each way past that loop (run or skipped), so
 * the side shared by the copies has two predecessors and no single branch
 * decides it. Per iteration: the update, 2 flops per row; with
 * o.precond == 1 the scaled copy (1 flop per row) and two dot products
 * (2 flops per row and an MPI_Allreduce each), else one dot product. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int iters;
  int precond;
  int n;
} Options;

typedef struct {
  int n;
} Problem;

static void parse(int argc, char **argv, Options *o) {
  o->iters = 10;
  o->precond = 0;
  o->n = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iters") == 0) o->iters = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--precond") == 0) o->precond = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--n") == 0) o->n = atoi(argv[i + 1]);
  }
}

/* A function of its own, as cg's dot products are: a call the copies share. */
__attribute__((noinline)) static double dot(const Problem *p, const double *a, const double *b) {
  double s = 0.0, t;
  for (int i = 0; i < p->n; i++) s += a[i] * b[i];
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

static double solve(const Problem *p, const Options *o, double *x, double *r, double *z, const double *d) {
  double rz = 0.0;
  for (int k = 0; k < o->iters; k++) {
    double alpha = 1.0 / (rz + 2.0);
    for (int i = 0; i < p->n; i++) x[i] += alpha * r[i];
    if (o->precond == 1) {
      for (int i = 0; i < p->n; i++) z[i] = d[i] * r[i];
      rz = dot(p, r, z) + dot(p, r, r);
    } else {
      rz = dot(p, r, r);
    }
  }
  return rz;
}

int main(int argc, char **argv) {
  Options o;
  Problem p;
  MPI_Init(&argc, &argv);
  parse(argc, argv, &o);
  p.n = o.n;
  double *x = calloc((size_t)p.n, sizeof(double)), *r = calloc((size_t)p.n, sizeof(double));
  double *z = calloc((size_t)p.n, sizeof(double)), *d = calloc((size_t)p.n, sizeof(double));
  double rz = solve(&p, &o, x, r, z, d);
  free(x), free(r), free(z), free(d);
  MPI_Finalize();
  return rz > 0.0;
}

/* A sparse matrix-vector product reached through a pointer in a struct of
 * operations (chosen from a table by an option, as a solver's matvec is),
 * called each step on a fine and on a coarse matrix whose sizes are a field of
 * the matrix struct: y = alpha A x on the fine one (beta 0), y = alpha (A x +
 * beta y) on the coarse one. Each side of the kernel is a row loop of `rows`
 * (the field, one parameter for every call) around a loop over the row's
 * nonzeros (data). The two row loops run different sizes: no one value of the
 * field makes both of them right.
 * `kernel_sizes ROWS STEPS` (ROWS even, at least 4). */
#include <mpi.h>
#include <stdlib.h>

struct csr {
  long rows;
  long *row_start; /* rows + 1 entries */
  long *cols;
  double *values;
};

struct operations {
  void (*matvec)(double alpha, const struct csr *a, const double *x, double beta, double *y);
};

/* fine: 2 flops a nonzero and 1 a row; coarse: 2 a nonzero and 2 a row */
static void csr_matvec(double alpha, const struct csr *a, const double *x, double beta, double *y) {
  const long rows = a->rows;
  if (beta == 0.0) {
    for (long i = 0; i < rows; ++i) { /* marker: fine_rows */
      double t = 0.0;
      for (long k = a->row_start[i]; k < a->row_start[i + 1]; ++k) t += a->values[k] * x[a->cols[k]];
      y[i] = alpha * t;
    }
  } else {
    for (long i = 0; i < rows; ++i) { /* marker: coarse_rows */
      double t = beta * y[i];
      for (long k = a->row_start[i]; k < a->row_start[i + 1]; ++k) t += a->values[k] * x[a->cols[k]];
      y[i] = alpha * t;
    }
  }
}

/* The diagonal alone (not chosen in the test's runs). */
static void diagonal_matvec(double alpha, const struct csr *a, const double *x, double beta, double *y) {
  for (long i = 0; i < a->rows; ++i) y[i] = alpha * a->values[a->row_start[i]] * x[i] + beta * y[i];
}

static const struct operations kernels[] = {{csr_matvec}, {diagonal_matvec}};

/* A band matrix of `rows` rows: the diagonal and `width` neighbours each side. */
static struct csr band(long rows, long width) {
  struct csr a = {rows, malloc((size_t)(rows + 1) * sizeof(long)), malloc((size_t)(rows * (2 * width + 1)) * sizeof(long)),
                  malloc((size_t)(rows * (2 * width + 1)) * sizeof(double))};
  long k = 0;
  for (long i = 0; i < rows; ++i) {
    a.row_start[i] = k;
    for (long j = i - width; j <= i + width; ++j)
      if (j >= 0 && j < rows) {
        a.cols[k] = j;
        a.values[k] = j == i ? 2.0 : -1.0;
        ++k;
      }
  }
  a.row_start[rows] = k;
  return a;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long rows = argc > 1 ? atol(argv[1]) : 256;
  int steps = argc > 2 ? atoi(argv[2]) : 4;
  const struct operations *ops = &kernels[argc > 3 && atoi(argv[3]) == 1 ? 1 : 0];
  struct csr fine = band(rows, 1);       /* 3 nonzeros a row, 2 at the ends */
  struct csr coarse = band(rows / 2, 0); /* 1 a row */
  double *x = malloc((size_t)rows * sizeof(double)), *y = malloc((size_t)rows * sizeof(double));
  for (long i = 0; i < rows; ++i) x[i] = y[i] = 1.0;
  double sum = 0.0, total = 0.0;
  for (int s = 0; s < steps; ++s) {
    ops->matvec(1.0, &fine, x, 0.0, y);
    ops->matvec(0.5, &coarse, y, 1.0, x);
    MPI_Allreduce(&y[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  MPI_Finalize();
  return total < 0.0;
}

/* Sizes a call through a pointer passes: each round a message of another
 * length goes to the next rank, and the handler its tag names is called
 * through its struct's pointer with the count MPI_Get_count read, a value
 * the analyser cannot express; each handler is called with counts of its
 * own, and one tests its count against the largest so far (a buffer's
 * capacity: taken on some calls). `pointer_sizes N ROUNDS` (round k sends
 * N (1 + k mod 3) elements, tagged k mod 2). */
#include <mpi.h>
#include <stdlib.h>

struct handler {
  double (*fill)(const double *buf, int count, int from);
};

static double accumulate(const double *buf, int count, int from) { /* 2 flops an element */
  double s = 0.0;
  for (int i = 0; i < count; ++i) s += 2.0 * buf[i]; /* marker: accumulate */
  return s + from;
}

static int widest = 0; /* the largest count squares was handed so far */

static double squares(const double *buf, int count, int from) { /* 2 flops an element */
  if (count > widest) widest = count; /* marker: widest */
  double s = 0.0;
  for (int i = 0; i < count; ++i) s += buf[i] * buf[i]; /* marker: squares */
  return from >= 0 ? s : -s;
}

static const struct handler handlers[] = {{accumulate}, {squares}};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int rounds = argc > 2 ? atoi(argv[2]) : 4;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *out = malloc(3 * (size_t)n * sizeof(double));
  double *in = malloc(3 * (size_t)n * sizeof(double));
  for (int i = 0; i < 3 * n; ++i) out[i] = (double)(i % 5);
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  double total = 0.0;
  for (int k = 0; k < rounds; ++k) { /* marker: rounds */
    MPI_Status status;
    int count = 0;
    MPI_Sendrecv(out, n * (1 + k % 3), MPI_DOUBLE, next, k % 2, in, 3 * n, MPI_DOUBLE, previous, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    total += handlers[status.MPI_TAG].fill(in, count, status.MPI_SOURCE); /* marker: fill */
  }
  double sum = 0.0;
  MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(out);
  free(in);
  MPI_Finalize();
  return sum < 0.0;
}

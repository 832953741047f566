/* The kernel is called through a function pointer held in a struct (a
 * simulation's `force` callback): the analyser cannot follow the call, and
 * the model's coverage lists it with its line. */
#include <mpi.h>
#include <stdlib.h>

#define N 1000

struct system {
  double x[N], f[N];
  void (*force)(struct system *s);
};

static void gravity(struct system *s) {
  for (int i = 0; i < N; ++i) s->f[i] = -s->x[i] * s->x[i] / (1.0 + s->x[i]);
}

static void spring(struct system *s) {
  for (int i = 0; i < N; ++i) s->f[i] = -2.0 * s->x[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct system *s = calloc(1, sizeof(struct system));
  s->force = rand() % 2 ? spring : gravity;
  for (int step = 0; step < 100; ++step) {
    s->force(s);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(s);
  MPI_Finalize();
  return 0;
}

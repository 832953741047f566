/* A solver's setup that picks one of two extra setups by options tested in
 * one condition of several tests (`simple > -1 && simple < levels`, then
 * `(mult > -1 && mult < levels) || (add > -1 && add < levels)`), the second a
 * call whose work is sized by what it reads itself. `unreached_call N SIMPLE
 * ADD MULT` (defaults 100, 0, -1, -1): with SIMPLE = -1 and the others -1,
 * neither setup runs and the work is the sum over the N weights (N flops). */
#include <mpi.h>
#include <stdlib.h>

struct setup {
  int simple, additive, mult_additive, levels;
  int n;
  double *w;
};

__attribute__((noinline)) void extra_levels(struct setup *s) {
  int count = s->n * s->levels;
  double *lambda = malloc(sizeof(double) * (size_t)count);
  for (int i = 0; i < count; ++i) lambda[i] = 1.0 / (1.0 + i);
  for (int i = 0; i < count; ++i) s->w[i % s->n] += lambda[i] * 0.5;
  free(lambda);
}

__attribute__((noinline)) void simple_levels(struct setup *s) {
  for (int i = 0; i < s->n; ++i) s->w[i] = 2.0 * s->w[i] + 1.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct setup s;
  s.n = argc > 1 ? atoi(argv[1]) : 100;
  s.simple = argc > 2 ? atoi(argv[2]) : 0;
  s.additive = argc > 3 ? atoi(argv[3]) : -1;
  s.mult_additive = argc > 4 ? atoi(argv[4]) : -1;
  s.levels = 4;
  s.w = calloc((size_t)s.n, sizeof(double));
  if (s.simple > -1 && s.simple < s.levels)
    simple_levels(&s);
  else if ((s.mult_additive > -1 && s.mult_additive < s.levels) || /* marker: extra */
           (s.additive > -1 && s.additive < s.levels))
    extra_levels(&s);
  double local = 0, total = 0;
  for (int i = 0; i < s.n; ++i) local += s.w[i];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(s.w);
  MPI_Finalize();
  return 0;
}

/* Loop bounds and guards read from a struct the program fills once (sizes in a
 * problem descriptor passed by pointer, options in a local struct whose address
 * is taken): the fields are parameters of their own (p.n, o.reps), so every loop
 * the optimiser makes of one source loop (unrolled body, remainder) counts exactly,
 * and `if (p->n > 0)` is a condition, not a coin flip. */
#include <stdlib.h>

typedef struct {
  int n;
  double *x, *y;
} Problem;

typedef struct {
  int reps;
  double a;
} Options;

__attribute__((noinline)) void parse(Options *o, int argc, char **argv) {
  o->reps = argc > 1 ? atoi(argv[1]) : 1;
  o->a = argc > 2 ? atof(argv[2]) : 0.5;
}

__attribute__((noinline)) void setup(Problem *p, int argc, char **argv) {
  p->n = argc > 3 ? atoi(argv[3]) : 100;
  p->x = calloc((size_t)p->n, sizeof(double));
  p->y = calloc((size_t)p->n, sizeof(double));
}

double result;

/* Not vectorised (an ordered sum), unrolled by 4 with a remainder loop. */
static void dot(const Problem *p, double a) {
  double s = 0.0;
  if (p->n > 0)
    for (int i = 0; i < p->n; i++) s += p->x[i] * p->y[i];
  result += a * s;
}

int main(int argc, char **argv) {
  Options o;
  Problem p;
  parse(&o, argc, argv);
  setup(&p, argc, argv);
  for (int r = 0; r < o.reps; r++) dot(&p, o.a);
  return (int)result;
}

/* Loops whose condition is on a line of its own: a `while` whose compound
 * condition spans two lines, and a `for` whose test is on the line after its
 * `for`. The front end joins the operands' tests below the header, on their
 * own lines, and leaves the loop from the statement's own test after them,
 * before the body, so each arrival tests once more than it iterates. Each call
 * of solve runs max_iter cycles (the residual never drops below a zero
 * tolerance), each of relax `sweeps` sweeps.
 * `two_line_condition CALLS MAX_ITER SWEEPS` */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) double work(double r) { return r * 0.9 + 0.1; }

__attribute__((noinline)) double solve(double tol, int min_iter, int max_iter, double r) {
  int cycle = 0;
  double resid = 1.0;
  while ((resid >= tol || cycle < min_iter) /* marker: cycles */
         && cycle < max_iter) {
    r = work(r);
    resid = r * 0.5;
    ++cycle;
  }
  return r;
}

__attribute__((noinline)) double relax(double r, int sweeps) {
  for (int s = 0; /* marker: sweeps */
       s < sweeps && r > 0.0; ++s)
    r = r * 0.5 + 0.25;
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int calls = atoi(argv[1]);    /* CALLS: required */
  int max_iter = atoi(argv[2]); /* MAX_ITER: required */
  int sweeps = atoi(argv[3]);   /* SWEEPS: required */
  double r = 1.0;
  for (int k = 0; k < calls; ++k) r = relax(solve(0.0, 0, max_iter, r), sweeps);
  MPI_Finalize();
  return r < 0.0;
}

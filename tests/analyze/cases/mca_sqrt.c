/* A loop with sqrt: with errno (C's default on Linux) the compiler emits the
 * square-root instruction and, for negative arguments only, a call to the
 * library's sqrt to set errno. */
#include <math.h>

__attribute__((noinline)) double norms(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; i++) s += 1.0 / sqrt(x[i] * x[i] + 1.0);
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  double x[64] = {0};
  return (int)norms(argc * 64, x);
}

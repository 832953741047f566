// An option parsed in a loop over the command line (`int n = 10;` then
// `-n 500` read inside the loop): the analyser gives `n` the value the source
// gives it first as its default, and the probes watch assignments outside
// loops only, so the run's value reaches the model through what the call
// `work(n)` passed.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) double work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  return s;
}

// options_loop [-n N]
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 10;
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) n = atoi(argv[++i]);
  printf("%g\n", work(n));
  MPI_Finalize();
  return 0;
}

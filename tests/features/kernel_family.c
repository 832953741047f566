// A kernel family chosen by the input, as CloverLeaf's `use_C_kernels` and
// `use_fortran_kernels` flags choose its kernels (test
// ProbeRun.BindsWhatOnlyTheKernelFamilyTheInputSwitchedOffReads): the flag is
// a global the input's reader sets and the time step tests, so the analyser
// writes the branch with that condition; the probes bind the flag's value.
// The family not chosen never runs, and the input gives its block size only
// when it is chosen: without it the run assigns no block size, and the side
// the bound flag rules out prices nothing, so it needs none.
#include <mpi.h>
#include <stdlib.h>

int use_blocked;  // the input's choice of kernel family

struct config {
  int rows, block;
};

__attribute__((noinline)) static void read_input(int argc, char** argv, struct config* cfg) {
  cfg->rows = argc > 1 ? atoi(argv[1]) : 64;
  use_blocked = argc > 2;
  if (use_blocked) cfg->block = atoi(argv[2]);  // marker: block
}

// 2 flops an element.
__attribute__((noinline)) static void smooth_plain(double* v, int n) {
  for (int i = 0; i < n; ++i) v[i] = v[i] * 0.5 + 1.0;
}

// 3 flops an element, a block at a time.
__attribute__((noinline)) static void smooth_blocked(double* v, const struct config* cfg) {
  const int blocks = cfg->rows / cfg->block;
  for (int b = 0; b < blocks; ++b)
    for (int i = b * cfg->block; i < (b + 1) * cfg->block; ++i) v[i] = (v[i] + 1.0) * 0.5 - 0.25;
}

__attribute__((noinline)) static void step(double* v, const struct config* cfg) {
  if (use_blocked)  // marker: family
    smooth_blocked(v, cfg);
  else
    smooth_plain(v, cfg->rows);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct config cfg;
  read_input(argc, argv, &cfg);
  double* v = calloc((size_t)cfg.rows, sizeof(double));
  for (int s = 0; s < 5; ++s) step(v, &cfg);
  double sum = v[0], all = 0;
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(v);
  MPI_Finalize();
  return all < 0;
}

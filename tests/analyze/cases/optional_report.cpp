// A report made only when asked for (yaml: argc > 2 in main), in two
// functions with a local whose destructor runs on the way out, so each call
// that may throw is an `invoke` whose unwind edge leaves through the
// destructor:
// - finish: `if (yaml) report(); MPI_Finalize();`. The code after the `if`
//   does not post-dominate it (the unwind edge), though every run that does not
//   throw reaches it; the side that skips the report goes on to MPI_Finalize
//   and nothing else, the program's normal end, not a way out of a run that
//   stops early.
//   The log's destructor (1 flop) runs once, on the normal way out: the
//   cleanup report's and MPI_Finalize's unwind edges share runs only after a
//   throw.
// - phase: `if (yaml) report(); check();` under a timer whose destructor
//   synchronises: its barrier runs once, on the normal way out.
// The report's two allreduces run in each only when asked for.
#include <mpi.h>

#include <cstdio>

double mean_step;

struct Log {
  std::FILE *file = nullptr;
  double total = 0;
  long steps = 1;
  __attribute__((noinline)) ~Log() {
    mean_step = total / static_cast<double>(steps);
    if (file) std::fclose(file);
  }
};

struct Phase {
  __attribute__((noinline)) ~Phase() { MPI_Barrier(MPI_COMM_WORLD); }
};

__attribute__((noinline)) void report(const double *t, int n) {
  double sum = 0, all = 0;
  for (int i = 0; i < n; i++) sum += t[i];
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (all < 0) throw 1;
}

__attribute__((noinline)) void check(const double *t) {
  if (t[0] < 0) throw 2;
}

__attribute__((noinline)) void phase(const double *t, int n, int yaml) {
  Phase timer;
  if (yaml) report(t, n);
  check(t);
}

__attribute__((noinline)) int finish(const double *t, int n, int yaml) {
  Log log;
  if (yaml) report(t, n);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double t[4] = {1, 2, 3, 4};
  phase(t, 4, argc > 2);
  return finish(t, 4, argc > 2);
}

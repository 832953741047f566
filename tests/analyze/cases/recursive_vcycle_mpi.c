/* A distributed V-cycle, shaped as a multigrid solver's: `vcycle` smooths its
 * level, exchanges its halo with a neighbour (MPI_Sendrecv) and calls itself
 * on the next coarser level until the coarsest, where it sums a norm over the
 * ranks (MPI_Allreduce); back from the coarser level it adds its correction
 * (so the recursion is no tail call the optimiser makes a loop). main runs the cycles between MPI_Pcontrol(1) and
 * MPI_Pcontrol(0), reading their count from a struct that vcycle receives by
 * pointer: the optimiser reloads it every iteration, so the loop's exit
 * depends on data and its count is a parameter, behind the test the optimiser
 * puts before the rotated loop, inside a loop of repeats with more calls
 * after it (not a test that skips to the end of the program).
 * `recursive_vcycle_mpi LEVELS CYCLES N REPEATS` (N = 1536 by default). */
#include <mpi.h>
#include <stdlib.h>

typedef struct {
  int levels, cycles, rank, size;
  long n;
  double *x, *halo;
} Solver;

static void vcycle(Solver *s, int l, long n) { /* marker: vcycle */
  for (long i = 1; i < n; ++i) s->x[i] = 0.5 * (s->x[i] + s->x[i - 1]);
  MPI_Sendrecv(s->x, 8, MPI_DOUBLE, (s->rank + 1) % s->size, 0, s->halo, 8, MPI_DOUBLE,
               (s->rank + s->size - 1) % s->size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (l + 1 < s->levels) {
    vcycle(s, l + 1, n / 2);
    long i = 0;
    do s->x[i] += 0.25 * s->x[n + i / 2]; /* a level has n >= 1 points: no test before the loop */
    while (++i < n);
  } else {
    double local = s->x[0], global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    s->x[0] = global;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Solver s;
  s.levels = argc > 1 ? atoi(argv[1]) : 4;
  s.cycles = argc > 2 ? atoi(argv[2]) : 3;
  s.n = argc > 3 ? atol(argv[3]) : 1536;
  int repeats = argc > 4 ? atoi(argv[4]) : 1;
  double times[16];
  if (repeats > 16) repeats = 16;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  s.x = calloc((size_t)(2 * s.n), sizeof(double));
  s.halo = calloc(8, sizeof(double));
  for (int rep = 0; rep < repeats; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    double t0 = MPI_Wtime();
    for (int c = 1; c <= s.cycles; c++) vcycle(&s, 0, s.n);
    double t = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    MPI_Allreduce(&t, &times[rep], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (s.rank == 0 && times[0] < 0) return 1;
  free(s.x);
  free(s.halo);
  MPI_Finalize();
  return 0;
}

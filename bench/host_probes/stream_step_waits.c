// Build and run: mpicc.openmpi -O2 bench/host_probes/stream_step_waits.c -o /tmp/stream_step_waits &&
//   mpirun.openmpi -np 2 --bind-to core /tmp/stream_step_waits 131072 8800 40   (and -np 1 for one rank alone)
// Arguments: exchange bytes, KiB per array per rank, steps. (issue 5, stop 18)
// Stencil-like steps on 2 ranks: each step streams 3 arrays of M KiB (un = 2u - up + c),
// then (mode 1) exchanges B bytes with the peer. Mode 0: the same steps, no exchange, both
// ranks at once (free running). Reports per-step time per rank; mode 1 - mode 0 = what the
// exchange and the per-step synchronisation cost.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t bytes = atol(argv[1]), m = atol(argv[2]) * 1024 / 8; int steps = atoi(argv[3]);
  size_t n = bytes / 8;
  double *s = malloc(bytes + 8), *r = malloc(bytes + 8), *u = malloc(m * 8), *up = malloc(m * 8), *un = malloc(m * 8);
  for (size_t i = 0; i < m; i++) { u[i] = i; up[i] = 1; un[i] = 0; }
  for (size_t i = 0; i < n; i++) s[i] = r[i] = 0;
  int peer = 1 - rank;
  for (int rep = 0; rep < 5; rep++)
  for (int mode = 0; mode < (size == 1 ? 1 : 3); mode++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), tx = 0;
    for (int k = 0; k < steps; k++) {
      for (size_t i = 1; i + 1 < m; i++) un[i] = 2 * u[i] - up[i] + 0.1 * (u[i - 1] + u[i + 1]);
      double *t = up; up = u; u = un; un = t;
      if (mode >= 1) {
        for (size_t i = 0; i < n; i++) s[i] = u[i];
        double tt = MPI_Wtime();
        if (mode == 2) MPI_Barrier(MPI_COMM_WORLD);
        double tb = MPI_Wtime();
        MPI_Request q[2];
        MPI_Irecv(r, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(s, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        tx += MPI_Wtime() - (mode == 2 ? tb : tt);
        u[0] = r[0];
      }
    }
    double t = MPI_Wtime() - t0;
    double tmax; MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 || 1) printf("rep %d mode %s rank %d: %.1f us/step (max over ranks %.1f), exchange %.1f us/step\n", rep,
        mode == 0 ? "free    " : mode == 1 ? "exchange" : "barrier+exchange", rank, 1e6 * t / steps, 1e6 * tmax / steps, 1e6 * tx / steps);
  }
  MPI_Finalize();
}

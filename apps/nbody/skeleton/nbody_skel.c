/* nbody_skel — the BSIM skeleton of apps/nbody/nbody.c (Susukita et al., SC2008).
 *
 * Same options, same block distribution of bodies (the first N mod P ranks one
 * more), same MPI calls in the same order and sizes as nbody for the same
 * arguments: the MPI_Allgatherv of masses (8 n_r bytes from rank r) and of
 * positions (24 n_r) at start-up, the energy reductions (2 doubles), one
 * position MPI_Allgatherv per force evaluation (leapfrog: S + 1 per run, rk4:
 * 4 S + 1 for the final positions), the barrier and MPI_MAX time reduction of
 * every repeat, the MPI_Reduce of the interaction count and the momentum
 * reduction (3 doubles).
 *
 * Compute is given by counts (BSIM_Add_flops/BSIM_Add_bytes) from nbody's loops:
 *   - direct forces: n_r * N pairs per evaluation, 20 flops each (3 sub, 9 mul,
 *     6 add, 1 div, 1 sqrt counted as flops); the bytes are the arrays each
 *     evaluation streams once (positions 24 N and masses 8 N read, 24 n_r of
 *     accelerations written): the pair loop re-reads them from cache, and
 *     counting those re-reads as memory traffic would price a compute-bound
 *     kernel as memory-bound;
 *   - Barnes-Hut: the interactions are data (they depend on how the bodies
 *     cluster), so they come from a model: per body and evaluation
 *     min(N - 1, 14.4 theta^-1.17 log2 N), fitted to nbody's own counts at
 *     N = 1000 (README: theta 0.3 -> 585, 0.5 -> 357, 0.7 -> 229, 1.0 -> 144),
 *     each 20 flops plus a 12-flop opening test; or given with
 *     --interactions-per-body (a real run's interactions / (evaluations * N));
 *     the replicated tree build as 30 N log2 N flops;
 *   - integrator updates (leapfrog 18 flops per body and step, rk4 90), the
 *     energy sums (n_r (N - 1) pairs of 11 flops), the Plummer sampling (about
 *     200 flops per body, on every rank).
 * Calls whose values are printed stay real MPI_* (the slowest-rank time of each
 * repeat); everything else is LMPI_* with NULL buffers. Rank 0 prints one JSON
 * object with nbody's count keys and the simulated times ("check":"skeleton");
 * then every rank prints its "skel_bytes" line (skel_tally.h).
 *
 * Build: perfcast cc -O2 -I apps/include apps/nbody/skeleton/nbody_skel.c -o nbody_skel
 * Run:   perfcast simulate --machine machines/generic-cluster.toml --np 8 -- ./nbody_skel --bodies 4000
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */
#include <bsim.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nbody_options.h"
#include "skel_tally.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: nbody_skel [options]   (the BSIM skeleton of nbody: nbody's options)\n"
          "  --bodies N        number of bodies (>= 2, default 1000)\n"
          "  --steps S         time steps (>= 1, default 100)\n"
          "  --dt T, --softening E, --seed K, --drift-bound B   accepted, no effect on the skeleton\n"
          "  --theta A         Barnes-Hut opening angle (> 0, default 0.5): sets the modelled interactions\n"
          "  --force F         direct | bh (default direct)\n"
          "  --integrator I    leapfrog | rk4 (default leapfrog)\n"
          "  --repeats R       timed repeats of the whole run (1..1000, default 1)\n"
          "  --interactions-per-body X   Barnes-Hut interactions per body and force evaluation\n"
          "                    (default: a model fitted to nbody, see the source)\n"
          "  --help            this text\n");
}

typedef struct {
  int n, nloc, ranks;
  int *counts3, *displs3; /* allgatherv counts/displacements in doubles */
  double bh_per_body;     /* modelled Barnes-Hut interactions per body and evaluation */
  long force_evals, gathers;
} World;

/* Barnes-Hut interactions per body and evaluation: given, or the model. */
static double bh_interactions(const Params *p, int n) {
  double k = p->interactions_per_body > 0 ? p->interactions_per_body
                                          : 14.4 * pow(p->theta, -1.17) * log2((double)n);
  return k < n - 1 ? k : (double)(n - 1);
}

/* nbody's evaluate(): gather all positions, then the forces on the local bodies. */
static void evaluate(World *w, const Params *p, MPI_Comm comm, SkelTally *t) {
  double n = w->n, nloc = w->nloc;
  LMPI_Allgatherv(NULL, 3 * w->nloc, MPI_DOUBLE, NULL, w->counts3, w->displs3, MPI_DOUBLE, comm);
  tally_add(t, TALLY_ALLGATHERV, 24LL * w->nloc);
  ++w->gathers;
  if (p->force == FORCE_DIRECT) {
    BSIM_Add_flops(20.0 * nloc * n);
    BSIM_Add_bytes(32.0 * n + 24.0 * nloc);
  } else {
    double logn = log2(n > 2 ? n : 2);
    BSIM_Add_flops(30.0 * n * logn);            /* the replicated tree build */
    BSIM_Add_bytes(100.0 * n);                  /* nodes written, bodies read */
    BSIM_Add_flops(32.0 * nloc * w->bh_per_body); /* the walks of the local bodies */
    BSIM_Add_bytes(64.0 * nloc * w->bh_per_body);  /* irregular node reads */
  }
  ++w->force_evals;
}

/* nbody's energy(): n_r (N-1) pairs, one reduction of 2 doubles. */
static void energy(const World *w, MPI_Comm comm, SkelTally *t) {
  BSIM_Add_flops(11.0 * (double)w->nloc * (double)(w->n - 1) + 8.0 * w->nloc);
  BSIM_Add_bytes(32.0 * w->n + 24.0 * w->nloc);
  LMPI_Allreduce(NULL, NULL, 2, MPI_DOUBLE, MPI_SUM, comm);
  tally_add(t, TALLY_ALLREDUCE, 16);
}

static void integrate(World *w, const Params *p, MPI_Comm comm, SkelTally *t) {
  long s;
  double m3 = 3.0 * w->nloc;
  if (p->integrator == INT_LEAPFROG) {
    evaluate(w, p, comm, t);
    for (s = 0; s < p->steps; ++s) {
      BSIM_Add_flops(4.0 * m3); /* kick, drift */
      BSIM_Add_bytes(56.0 * m3);
      evaluate(w, p, comm, t);
      BSIM_Add_flops(2.0 * m3); /* kick */
      BSIM_Add_bytes(24.0 * m3);
    }
  } else {
    for (s = 0; s < p->steps; ++s) {
      evaluate(w, p, comm, t);
      BSIM_Add_flops(3.0 * m3);
      BSIM_Add_bytes(24.0 * m3);
      evaluate(w, p, comm, t);
      BSIM_Add_flops(5.0 * m3);
      BSIM_Add_bytes(32.0 * m3);
      evaluate(w, p, comm, t);
      BSIM_Add_flops(5.0 * m3);
      BSIM_Add_bytes(32.0 * m3);
      evaluate(w, p, comm, t);
      BSIM_Add_flops(17.0 * m3);
      BSIM_Add_bytes(80.0 * m3);
    }
    /* final positions for the energy */
    LMPI_Allgatherv(NULL, 3 * w->nloc, MPI_DOUBLE, NULL, w->counts3, w->displs3, MPI_DOUBLE, comm);
    tally_add(t, TALLY_ALLGATHERV, 24LL * w->nloc);
    ++w->gathers;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int rank, ranks, parsed, r;
  Params p;
  World w;
  SkelTally tally;
  MPI_Comm comm = MPI_COMM_WORLD;
  int *counts, *displs;
  double *times;
  long evals_per_run = 0, gathers_per_run = 0;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  memset(&tally, 0, sizeof tally);
  parsed = nbody_parse_args("nbody_skel", argc, argv, rank, 1, &p);
  if (parsed == 2) {
    if (rank == 0) usage(stdout);
    MPI_Finalize();
    return 0;
  }
  if (parsed == 0) {
    MPI_Finalize();
    return 2;
  }

  memset(&w, 0, sizeof w);
  w.n = (int)p.bodies;
  w.ranks = ranks;
  w.counts3 = malloc((size_t)ranks * sizeof(int));
  w.displs3 = malloc((size_t)ranks * sizeof(int));
  counts = malloc((size_t)ranks * sizeof(int));
  displs = malloc((size_t)ranks * sizeof(int));
  times = malloc((size_t)p.repeats * sizeof(double));
  if (!w.counts3 || !w.displs3 || !counts || !displs || !times) {
    fprintf(stderr, "nbody_skel: rank %d: out of memory\n", rank);
    MPI_Abort(comm, 3);
  }
  nbody_blocks(w.n, ranks, counts, displs, w.counts3, w.displs3);
  w.nloc = counts[rank];
  w.bh_per_body = bh_interactions(&p, w.n);

  /* Plummer sampling of all N bodies on every rank (rejection loops, pow, sqrt). */
  BSIM_Add_flops(200.0 * w.n);
  BSIM_Add_bytes(56.0 * w.n);
  LMPI_Allgatherv(NULL, w.nloc, MPI_DOUBLE, NULL, counts, displs, MPI_DOUBLE, comm);
  tally_add(&tally, TALLY_ALLGATHERV, 8LL * w.nloc);
  LMPI_Allgatherv(NULL, 3 * w.nloc, MPI_DOUBLE, NULL, w.counts3, w.displs3, MPI_DOUBLE, comm);
  tally_add(&tally, TALLY_ALLGATHERV, 24LL * w.nloc);
  energy(&w, comm, &tally);

  for (r = 0; r < p.repeats; ++r) {
    double t0, t_local, t_max;
    w.force_evals = w.gathers = 0;
    LMPI_Barrier(comm);
    MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
    t0 = MPI_Wtime();
    integrate(&w, &p, comm, &tally);
    t_local = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    /* printed by rank 0: a real reduction */
    MPI_Allreduce(&t_local, &t_max, 1, MPI_DOUBLE, MPI_MAX, comm);
    tally_add(&tally, TALLY_ALLREDUCE, 8);
    times[r] = t_max;
    evals_per_run = w.force_evals;
    gathers_per_run = w.gathers;
  }

  energy(&w, comm, &tally);
  LMPI_Reduce(NULL, NULL, 1, MPI_LONG, MPI_SUM, 0, comm); /* nbody's interaction count */
  tally_add(&tally, TALLY_REDUCE, (long long)sizeof(long));
  BSIM_Add_flops(6.0 * w.nloc);
  LMPI_Allreduce(NULL, NULL, 3, MPI_DOUBLE, MPI_SUM, comm); /* momentum */
  tally_add(&tally, TALLY_ALLREDUCE, 24);

  if (rank == 0) {
    double *sorted = malloc((size_t)p.repeats * sizeof(double)), median;
    double per_pair = p.force == FORCE_DIRECT ? (double)w.n : w.bh_per_body;
    memcpy(sorted, times, (size_t)p.repeats * sizeof(double));
    qsort(sorted, (size_t)p.repeats, sizeof(double), cmp_double);
    median = (p.repeats % 2) ? sorted[p.repeats / 2] : 0.5 * (sorted[p.repeats / 2 - 1] + sorted[p.repeats / 2]);
    printf("nbody_skel: %d bodies, %d ranks, %ld steps, force %s, integrator %s: simulated time %.6g s\n", w.n, ranks,
           p.steps, p.force == FORCE_DIRECT ? "direct" : "bh", p.integrator == INT_LEAPFROG ? "leapfrog" : "rk4",
           median);
    printf("{\"app\":\"nbody_skel\",\"ranks\":%d,\"bodies\":%d,\"steps\":%ld,\"theta\":%.17g,\"force\":\"%s\","
           "\"integrator\":\"%s\",\"repeats\":%d,\"bodies_per_rank_min\":%d,\"bodies_per_rank_max\":%d,"
           "\"force_evaluations\":%ld,\"allgathervs\":%ld,\"allgatherv_bytes\":%ld,\"interactions\":%.17g,"
           "\"interactions_source\":\"%s\",\"time_s\":%.9g,\"times_s\":[",
           ranks, w.n, p.steps, p.theta, p.force == FORCE_DIRECT ? "direct" : "bh",
           p.integrator == INT_LEAPFROG ? "leapfrog" : "rk4", p.repeats, counts[ranks - 1], counts[0], evals_per_run,
           gathers_per_run, (long)w.n * 24L, (double)evals_per_run * w.n * per_pair,
           p.force == FORCE_DIRECT ? "exact" : (p.interactions_per_body > 0 ? "given" : "model"), median);
    for (r = 0; r < p.repeats; ++r) printf("%s%.9g", r ? "," : "", times[r]);
    printf("],\"check\":\"skeleton\"}\n");
    fflush(stdout);
    free(sorted);
  }
  tally_print(&tally, rank);
  free(w.counts3);
  free(w.displs3);
  free(counts);
  free(displs);
  free(times);
  MPI_Finalize();
  return 0;
}

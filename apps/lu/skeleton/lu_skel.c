/* lu_skel — the BSIM skeleton of apps/lu/lu.c (Susukita et al., SC2008).
 *
 * Same options, same P x Q grid and row/column communicators (two
 * MPI_Comm_split), same 2D block-cyclic layout, and the same MPI calls in the
 * same order with the same sizes as lu for the same arguments. Per block
 * column: in the panel's process column, per panel column an allreduce
 * (MAXLOC) of the pivot candidate and one of the two swapped panel rows; the
 * panel broadcast along each process row; the allreduce of the 2 jb rows the
 * swaps touch in the trailing columns. Per factorisation the barrier and the
 * MPI_MAX allreduce of its time; after the last, the gather of the factors
 * onto rank 0. None of those sizes depends on the matrix's values, so the
 * skeleton needs none.
 *
 * Compute is BSIM_Add_flops/BSIM_Add_bytes from lu's loops: the pivot search
 * (1 flop per row searched), the panel's scaling and rank-1 updates, the
 * dtrsm (jb (jb-1) flops per trailing column) and the dgemm (2 mpt nqt jb);
 * untimed, the matrix generation and rank 0's solve and residual.
 *
 * Calls whose values are printed stay real MPI_* (the slowest-rank time of each
 * factorisation); everything else is LMPI_* with NULL buffers. Rank 0 prints
 * one JSON object ("check":"skeleton"); every rank its "skel_bytes" line.
 *
 * Build: perfcast cc -O2 -I apps/include apps/lu/skeleton/lu_skel.c -o lu_skel
 * Run:   perfcast simulate --machine machines/generic-cluster.toml --np 16 -- ./lu_skel --n 2048 --nb 64
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */
#include <bsim.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lu_options.h"
#include "skel_tally.h"

typedef struct {
  LuOptions o;
  int rank, size, myrow, mycol, mp, nq;
  MPI_Comm rowcomm, colcomm;
} Grid;

/* What one factorisation hands the simulator on this rank; returns its flops.
 * With t NULL it only counts them (rank 0 sums every rank's share so). */
static double factor(const Grid *g, SkelTally *t) {
  const int n = g->o.n, nb = g->o.nb, P = g->o.p, Q = g->o.q;
  /* MPI's type size of MPI_DOUBLE_INT: its data, a double and an int, without padding */
  const long long double_int_bytes = (long long)(sizeof(double) + sizeof(int));
  double flops = 0.0;
  int g0, j;
  for (g0 = 0; g0 < n; g0 += nb) {
    int jb = n - g0 < nb ? n - g0 : nb, pc = (g0 / nb) % Q;
    int lr0 = lu_owned_below(g0, nb, g->myrow, P), lr1 = lu_owned_below(g0 + jb, nb, g->myrow, P);
    int lct = lu_owned_below(g0 + jb, nb, g->mycol, Q), nqt = g->nq - lct;
    int mpk = g->mp - lr0, mpt = g->mp - lr1, count = mpk * jb + jb * jb + jb;
    if (g->mycol == pc) {
      for (j = 0; j < jb; j++) {
        int searched = g->mp - lu_owned_below(g0 + j, nb, g->myrow, P);
        int below = g->mp - lu_owned_below(g0 + j + 1, nb, g->myrow, P);
        double f = (double)searched + (double)below * (1.0 + 2.0 * (jb - j - 1));
        flops += f;
        if (t == NULL) continue;
        BSIM_Add_flops(f);
        BSIM_Add_bytes(8.0 * (double)searched * (jb - j));
        LMPI_Allreduce(NULL, NULL, 1, MPI_DOUBLE_INT, MPI_MAXLOC, g->colcomm);
        tally_add(t, TALLY_ALLREDUCE, double_int_bytes);
        LMPI_Allreduce(NULL, NULL, 2 * jb, MPI_DOUBLE, MPI_SUM, g->colcomm);
        tally_add(t, TALLY_ALLREDUCE, 16LL * jb);
      }
      if (t != NULL) BSIM_Add_bytes(16.0 * (double)mpk * jb); /* the panel copied into the broadcast buffer */
    }
    if (t == NULL) {
      flops += nqt > 0 ? (double)jb * (jb - 1) * (double)nqt + 2.0 * mpt * (double)nqt * jb : 0.0;
      continue;
    }
    LMPI_Bcast(NULL, count, MPI_DOUBLE, pc, g->rowcomm);
    tally_add(t, TALLY_BCAST, 8LL * count);
    if (nqt == 0) continue;
    LMPI_Allreduce(NULL, NULL, 2 * jb * nqt, MPI_DOUBLE, MPI_SUM, g->colcomm);
    tally_add(t, TALLY_ALLREDUCE, 16LL * jb * nqt);
    /* the rows' packing and rebuilding, then dtrsm */
    BSIM_Add_bytes(8.0 * 6.0 * jb * (double)nqt);
    BSIM_Add_flops((double)jb * (jb - 1) * (double)nqt);
    flops += (double)jb * (jb - 1) * (double)nqt;
    if (mpt == 0) continue;
    BSIM_Add_flops(2.0 * mpt * (double)nqt * jb);
    BSIM_Add_bytes(8.0 * ((double)mpt * jb + (double)jb * nqt + 2.0 * (double)mpt * nqt));
    flops += 2.0 * mpt * (double)nqt * jb;
  }
  return flops;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Grid g;
  SkelTally tally;
  double *times, flops = 0.0, all_flops = 0.0;
  int rc, rep, r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.size);
  memset(&tally, 0, sizeof tally);
  rc = lu_parse_args("lu_skel", argc, argv, g.rank, &g.o);
  if (rc == 1) {
    if (g.rank == 0) printf("usage: lu_skel [options]   the BSIM skeleton of lu: lu's options (see lu --help)\n");
    MPI_Finalize();
    return 0;
  }
  if (rc == 0) rc = lu_choose_grid("lu_skel", &g.o, g.size, g.rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  g.myrow = g.rank / g.o.q;
  g.mycol = g.rank % g.o.q;
  g.mp = lu_owned_below(g.o.n, g.o.nb, g.myrow, g.o.p);
  g.nq = lu_owned_below(g.o.n, g.o.nb, g.mycol, g.o.q);
  MPI_Comm_split(MPI_COMM_WORLD, g.myrow, g.mycol, &g.rowcomm);
  MPI_Comm_split(MPI_COMM_WORLD, g.mycol, g.myrow, &g.colcomm);

  times = malloc(sizeof(double) * (size_t)g.o.repeats);
  if (times == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  for (rep = 0; rep < g.o.repeats; rep++) {
    double t0, dt, dtmax;
    /* the matrix regenerated (untimed): a hash of about 15 operations per element */
    BSIM_Add_flops(15.0 * (double)g.mp * g.nq);
    BSIM_Add_bytes(8.0 * (double)g.mp * g.nq);
    LMPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
    t0 = MPI_Wtime();
    flops = factor(&g, &tally);
    dt = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* printed by rank 0: real */
    tally_add(&tally, TALLY_ALLREDUCE, 8);
    times[rep] = dtmax;
  }

  {
    /* the check: the factors gathered onto rank 0, which solves and checks */
    int *counts = NULL, *displs = NULL, total = 0;
    if (g.rank == 0) {
      counts = malloc(sizeof(int) * (size_t)g.size);
      displs = malloc(sizeof(int) * (size_t)g.size);
      if (counts == NULL || displs == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
      for (r = 0; r < g.size; r++) {
        counts[r] = lu_owned_below(g.o.n, g.o.nb, r / g.o.q, g.o.p) * lu_owned_below(g.o.n, g.o.nb, r % g.o.q, g.o.q);
        displs[r] = total;
        total += counts[r];
      }
    }
    LMPI_Gatherv(NULL, g.mp * g.nq, MPI_DOUBLE, NULL, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    tally_add(&tally, TALLY_GATHERV, 8LL * g.mp * g.nq);
    if (g.rank == 0) {
      /* solve (2 n^2) and residual with A regenerated (n^2 hashes and products) */
      BSIM_Add_flops(20.0 * (double)g.o.n * g.o.n);
      BSIM_Add_bytes(24.0 * (double)g.o.n * g.o.n);
    }
    free(counts);
    free(displs);
  }

  if (g.rank == 0) {
    double *sorted = malloc(sizeof(double) * (size_t)g.o.repeats), t_med;
    for (r = 0; r < g.size; r++) { /* every rank's share, counted without a call */
      Grid gr = g;
      gr.myrow = r / g.o.q;
      gr.mycol = r % g.o.q;
      gr.mp = lu_owned_below(g.o.n, g.o.nb, gr.myrow, g.o.p);
      gr.nq = lu_owned_below(g.o.n, g.o.nb, gr.mycol, g.o.q);
      all_flops += factor(&gr, NULL);
    }
    memcpy(sorted, times, sizeof(double) * (size_t)g.o.repeats);
    qsort(sorted, (size_t)g.o.repeats, sizeof(double), cmp_double);
    t_med = (g.o.repeats % 2) ? sorted[g.o.repeats / 2]
                              : 0.5 * (sorted[g.o.repeats / 2 - 1] + sorted[g.o.repeats / 2]);
    printf("lu_skel: n %d, nb %d, grid %d x %d: simulated factorisation %.6g s\n", g.o.n, g.o.nb, g.o.p, g.o.q, t_med);
    printf("{\"app\":\"lu_skel\",\"ranks\":%d,\"n\":%d,\"nb\":%d,\"p\":%d,\"q\":%d,\"seed\":%llu,\"blocks\":%d", g.size,
           g.o.n, g.o.nb, g.o.p, g.o.q, g.o.seed, (g.o.n + g.o.nb - 1) / g.o.nb);
    printf(",\"flops\":%.17g,\"simulated_flops\":%.17g,\"rank0_flops\":%.17g,\"gflops\":%.9g,\"repeats\":%d",
           lu_flops(g.o.n), all_flops, flops, lu_flops(g.o.n) / t_med * 1e-9, g.o.repeats);
    printf(",\"time_s\":%.9g,\"times_s\":[", t_med);
    for (rep = 0; rep < g.o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"skeleton\"}\n");
    fflush(stdout);
    free(sorted);
  }
  tally_print(&tally, g.rank);
  free(times);
  MPI_Comm_free(&g.rowcomm);
  MPI_Comm_free(&g.colcomm);
  MPI_Finalize();
  return 0;
}

/* bfs_skel — the BSIM skeleton of apps/bfs/bfs.c (Susukita et al., SC2008).
 *
 * Same options, same cyclic vertex ownership, and the same MPI calls in the
 * same order as bfs for the same arguments, provided it is told the two things
 * that depend on the graph's data:
 *   - the number of levels of every search (--levels L1,L2,...: bfs's JSON
 *     "levels", one per root; the BFS loop and the validation's parent-depth
 *     loop each run that many rounds for a valid tree);
 *   - the number of batches of 64 candidate roots choose_roots() draws
 *     (--root-batches; default 1 + (roots - 1) / 32, i.e. it assumes at least
 *     half of the candidates have an edge, true of Kronecker graphs with
 *     edgefactor >= 4 at the scales used here; none for 0 roots).
 * Without --levels, every search is given 6 levels (Kronecker graphs at scale
 * 10-14 have 4-7; bfs's README).
 *
 * What it models rather than knows: the all-to-all volumes. Sizes of
 * MPI_Alltoall (one int per peer) and of the reductions are exact; the
 * MPI_Alltoallv counts are a model, spread evenly over the peers (so they
 * match between senders and receivers):
 *   - CSR construction: 4 int64 per generated edge of the rank (self-loops,
 *     about 0.3 % at edgefactor 16, are not dropped);
 *   - a search: 2 int64 per adjacency entry of a remote owner scanned, about
 *     2 E 2^S (P-1)/P^2 per rank in total, distributed over the levels as a
 *     binomial profile C(L-1, l) / 2^(L-1) (small, one or two large middle
 *     levels, a tail: the shape bfs's README describes);
 *   - validation look-ups: one int64 per vertex still without a depth (the
 *     same profile), per tree edge, and two per generated edge.
 * Compute is given by counts (BSIM_Add_flops/BSIM_Add_bytes) from bfs's loops
 * on the modelled volumes (edge generation 12 flops per bit level, scans 8
 * bytes per adjacency entry plus a random 8-byte parent access).
 *
 * Calls whose values are printed stay real MPI_* (the slowest-rank time of
 * every search); everything else is LMPI_* with NULL buffers. Rank 0 prints
 * one JSON object with bfs's layout keys and the simulated times
 * ("check":"skeleton"); then every rank prints its "skel_bytes" line
 * (skel_tally.h). Not mirrored: bfs's hidden --corrupt-parent, and the error
 * exit when fewer roots than asked have an edge.
 *
 * Build: perfcast cc -O2 -I apps/include apps/bfs/skeleton/bfs_skel.c -o bfs_skel
 * Run:   perfcast simulate --machine machines/generic-cluster.toml --np 16 -- ./bfs_skel --scale 16 --roots 4
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */
#include <bsim.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bfs_options.h"
#include "skel_tally.h"

/* Per-rank scratch for the all-to-all counts. */
typedef struct {
  int P, rank;
  int *scnt, *rcnt, *sdisp, *rdisp;
  SkelTally *tally;
} Comm;

static void usage(FILE *f) {
  fprintf(f,
          "usage: bfs_skel [options]   (the BSIM skeleton of bfs: bfs's options, plus two of its own)\n"
          "  --scale S         2^S vertices (1..32, default 12)\n"
          "  --edgefactor E    E*2^S generated edges (1..1024, default 16)\n"
          "  --roots K         number of search keys (0..4096, default 8; 0: the set-up only)\n"
          "  --seed X          accepted, no effect on the skeleton\n"
          "  --repeats R       searches per root (1..1000, default 1)\n"
          "  --levels L1,L2,.. levels of each root's search (bfs's JSON \"levels\"; default 6 each)\n"
          "  --root-batches B  batches of 64 candidate roots bfs draws (default 1 + (roots-1)/32, 0 for 0 roots)\n"
          "  --help            this text\n");
}

/* The share of a search's volume at level l of L: C(L-1, l) / 2^(L-1). */
static double level_share(int l, int L) {
  double c = 1.0;
  int k;
  for (k = 1; k <= l; k++) c = c * (L - k) / k;
  return c / ldexp(1.0, L - 1);
}

/* An all-to-all of `per_peer` int64 to every rank (`to_self`: self included);
 * uniform, so every rank's send counts match its peers' receive counts. */
static void alltoallv(Comm *c, double per_peer, int to_self) {
  int q, n = (int)floor(per_peer + 0.5);
  long long sent = 0;
  for (q = 0; q < c->P; q++) {
    c->scnt[q] = c->rcnt[q] = (q == c->rank && !to_self) ? 0 : n;
    c->sdisp[q] = c->rdisp[q] = q * n;
    sent += c->scnt[q];
  }
  LMPI_Alltoallv(NULL, c->scnt, c->sdisp, MPI_INT64_T, NULL, c->rcnt, c->rdisp, MPI_INT64_T, MPI_COMM_WORLD);
  tally_add(c->tally, TALLY_ALLTOALLV, 8 * sent);
}

static void alltoall_counts(Comm *c) {
  LMPI_Alltoall(NULL, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD);
  tally_add(c->tally, TALLY_ALLTOALL, 4LL * c->P);
}

static void allreduce(Comm *c, int count, MPI_Datatype type, int size, MPI_Op op) {
  LMPI_Allreduce(NULL, NULL, count, type, op, MPI_COMM_WORLD);
  tally_add(c->tally, TALLY_ALLREDUCE, (long long)count * size);
}

/* bfs's fetch_values() for n ids of this rank: counts, ids out, values back. */
static void fetch_values(Comm *c, double n) {
  BSIM_Add_flops(4.0 * n);
  BSIM_Add_bytes(40.0 * n);
  alltoall_counts(c);
  alltoallv(c, n / c->P, 1);
  BSIM_Add_bytes(16.0 * n);
  alltoallv(c, n / c->P, 1);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Options *o;
  Comm c;
  SkelTally tally;
  int rank, size, pr, r, rep, l, b;
  double N, M, m_rank, nlocal, adj_local, *times;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(&tally, 0, sizeof tally);
  o = malloc(sizeof *o); /* on the heap: 16 KiB of levels do not belong on a rank's stack */
  if (o == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  pr = bfs_parse_args("bfs_skel", argc, argv, rank, 1, o);
  if (pr == 1 && rank == 0) usage(stdout);
  if (pr != 0) {
    free(o);
    MPI_Finalize();
    return pr == 1 ? 0 : 2;
  }
  c.P = size;
  c.rank = rank;
  c.tally = &tally;
  c.scnt = malloc(sizeof(int) * size);
  c.rcnt = malloc(sizeof(int) * size);
  c.sdisp = malloc(sizeof(int) * size);
  c.rdisp = malloc(sizeof(int) * size);
  times = malloc(sizeof(double) * ((size_t)o->roots * o->repeats + 1)); /* + 1: not NULL for 0 roots */
  if (!c.scnt || !c.rcnt || !c.sdisp || !c.rdisp || !times) MPI_Abort(MPI_COMM_WORLD, 3);

  N = ldexp(1.0, o->scale);
  M = N * o->edgefactor;
  m_rank = M / size;        /* edges this rank generates */
  nlocal = N / size;        /* vertices it owns */
  adj_local = 2.0 * M / size; /* its adjacency entries */

  /* Generation: one R-MAT quadrant draw per bit level, two permutations. */
  BSIM_Add_flops(m_rank * (12.0 * o->scale + 2.0 * (3.0 * o->scale + 10.0)));
  BSIM_Add_bytes(16.0 * m_rank);
  LMPI_Barrier(MPI_COMM_WORLD);
  /* CSR construction: count, pack both directions, ship, place. */
  BSIM_Add_flops(4.0 * m_rank);
  BSIM_Add_bytes(16.0 * m_rank + 48.0 * m_rank);
  alltoall_counts(&c);
  alltoallv(&c, 4.0 * m_rank / size, 1);
  BSIM_Add_bytes(32.0 * adj_local + 16.0 * nlocal);
  LMPI_Barrier(MPI_COMM_WORLD);
  allreduce(&c, 1, MPI_INT64_T, 8, MPI_SUM); /* self-loops */
  allreduce(&c, 1, MPI_INT64_T, 8, MPI_SUM); /* adjacency entries */
  for (b = 0; b < o->root_batches; b++) allreduce(&c, 64, MPI_INT, 4, MPI_MAX);

  for (r = 0; r < o->roots; r++) {
    int L = o->levels[r];
    for (rep = 0; rep < o->repeats; rep++) {
      double t0, elapsed, tmax;
      /* bfs(): a level-synchronous search */
      BSIM_Add_bytes(16.0 * nlocal);
      LMPI_Barrier(MPI_COMM_WORLD);
      MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
      t0 = MPI_Wtime();
      for (l = 0; l < L; l++) {
        double scanned = adj_local * level_share(l, L);
        BSIM_Add_flops(2.0 * 4.0 * scanned);
        BSIM_Add_bytes(2.0 * 8.0 * scanned + 8.0 * scanned);
        alltoall_counts(&c);
        alltoallv(&c, 2.0 * scanned / size, 0);
        BSIM_Add_bytes(2.0 * 8.0 * scanned * (size - 1) / size);
        allreduce(&c, 1, MPI_INT64_T, 8, MPI_SUM);
      }
      elapsed = MPI_Wtime() - t0;
      MPI_Pcontrol(0);
      /* printed by rank 0: a real reduction */
      MPI_Allreduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      tally_add(&tally, TALLY_ALLREDUCE, 8);
      times[r * o->repeats + rep] = tmax;
      BSIM_Add_bytes(8.0 * nlocal);
      allreduce(&c, 2, MPI_INT64_T, 8, MPI_SUM); /* reached, pairs */

      /* validate(): rule 1, one look-up round per level of the tree */
      {
        double pending = nlocal;
        BSIM_Add_bytes(24.0 * nlocal);
        for (l = 0; l < L; l++) {
          fetch_values(&c, pending);
          allreduce(&c, 1, MPI_INT64_T, 8, MPI_SUM);
          pending -= nlocal * level_share(l < L - 1 ? l + 1 : l, L);
          if (pending < 0) pending = 0;
        }
      }
      fetch_values(&c, nlocal);         /* rule 2: the parents' levels */
      BSIM_Add_bytes(8.0 * adj_local);  /* rule 5: the tree edge in the adjacency */
      fetch_values(&c, 2.0 * m_rank);   /* rules 3 and 4: both ends of every edge */
      allreduce(&c, 6, MPI_INT64_T, 8, MPI_SUM);
    }
  }

  if (rank == 0) {
    int n = o->roots * o->repeats, s;
    double *sorted = malloc(sizeof(double) * (n + 1)), med = 0; /* 0 roots: no search, time 0 as bfs */
    memcpy(sorted, times, sizeof(double) * n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    if (n) med = (n % 2) ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    printf("bfs_skel: scale %d, edgefactor %d, %d ranks, %d roots x %d repeats: simulated median search %.6g s\n",
           o->scale, o->edgefactor, size, o->roots, o->repeats, med);
    printf("{\"app\":\"bfs_skel\",\"ranks\":%d,\"scale\":%d,\"edgefactor\":%d,\"vertices\":%.0f,\"edges\":%.0f,"
           "\"roots\":%d,\"repeats\":%d,\"root_batches\":%d,\"levels_source\":\"%s\",\"levels\":[",
           size, o->scale, o->edgefactor, N, M, o->roots, o->repeats, o->root_batches,
           o->nlevels ? "given" : "default");
    for (r = 0; r < o->roots; r++) printf("%s%d", r ? "," : "", o->levels[r]);
    printf("],\"time_s\":%.9g,\"times_s\":[", med);
    for (s = 0; s < n; s++) printf("%s%.9g", s ? "," : "", times[s]);
    printf("],\"check\":\"skeleton\"}\n");
    fflush(stdout);
    free(sorted);
  }
  tally_print(&tally, rank);
  free(c.scnt);
  free(c.rcnt);
  free(c.sdisp);
  free(c.rdisp);
  free(times);
  free(o);
  MPI_Finalize();
  return 0;
}

/* mg_skel — the BSIM skeleton of apps/mg/mg.c (Susukita et al., SC2008).
 *
 * Same options, same process grid (MPI_Dims_create, MPI_Cart_create,
 * MPI_Cart_shift), same level hierarchy and agglomeration rule (levels stay
 * distributed while every rank holds >= --min-local points per dimension; the
 * first level that breaks the rule and all coarser ones live on rank 0), and
 * the same MPI calls in the same order, with the same peers, tags and sizes,
 * as mg for the same arguments:
 *   - the three-phase halo exchange (MPI_Sendrecv of x faces, y faces with x
 *     ghosts, z faces with both) before every smoothing sweep (two per sweep,
 *     one per colour, for red-black Gauss-Seidel), every residual, the
 *     restriction and the prolongation;
 *   - MPI_Gatherv of the restricted residual to rank 0 and MPI_Scatterv of the
 *     correction at the agglomeration level;
 *   - the two residual-norm reductions per cycle, the barrier and time
 *     reduction of every solve, the halo-count and error reductions, and
 *     MPI_Comm_free of the Cartesian communicator.
 * Compute is given by counts (BSIM_Add_flops/BSIM_Add_bytes) per updated point
 * from mg's loops (see the K_* constants below); a rank's updated points on a
 * level are mg's (the global point 0 is the Dirichlet boundary and is skipped).
 *
 * Calls whose values are printed and that the skeleton can compute stay real
 * MPI_*: the slowest-rank time of each solve and the halo message/byte counts
 * (each rank counts what it hands to LMPI_Sendrecv, as mg counts what it
 * sends). The residual norms and the error are data the skeleton does not
 * have: LMPI_* with NULL buffers, and the convergence check is not made. Rank 0
 * prints one JSON object with mg's layout and traffic keys and the simulated
 * times ("check":"skeleton"); then every rank prints its "skel_bytes" line
 * (skel_tally.h).
 *
 * Build: perfcast cc -O2 -I apps/include apps/mg/skeleton/mg_skel.c -o mg_skel
 * Run:   perfcast simulate --machine machines/generic-cluster.toml --np 64 -- ./mg_skel --n 128
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */
#include <bsim.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mg_options.h"
#include "skel_tally.h"

/* Counts per point of mg's kernels (8-byte doubles). */
#define K_JACOBI_FLOPS 11.0   /* 5 adds of the neighbours, u + w6 (h2 f + s - 6u) */
#define K_JACOBI_BYTES 24.0   /* u and f read, the new u written */
#define K_RBGS_FLOPS 8.0      /* per point of the colour: 5 adds, (h2 f + s) / 6 */
#define K_RBGS_BYTES 24.0     /* per point of the grid and colour: u read and written, f read */
#define K_RESID_FLOPS 9.0     /* f - (6u - s) / h^2 */
#define K_RESID_BYTES 24.0
#define K_FW_FLOPS 30.0       /* per coarse point: 27 fine values, four weights */
#define K_FW_BYTES 72.0       /* eight fine points read per coarse point, one written */
#define K_INJECT_FLOPS 1.0
#define K_INJECT_BYTES 16.0
#define K_PROLONG_FLOPS 23.0  /* trilinear weights of eight coarse values, added to u */
#define K_PROLONG_BYTES 16.0
#define K_NORM_FLOPS 3.0
#define K_NORM_BYTES 8.0
#define K_INIT_FLOPS 100.0    /* three sines and the random start */
#define K_INIT_BYTES 16.0
#define K_ERROR_FLOPS 70.0    /* three sines and a max */
#define K_ERROR_BYTES 8.0
#define K_PACK_BYTES 16.0     /* a halo element packed or unpacked */

/* What mg's Level holds that decides communication and work. */
typedef struct {
  int present;   /* mg allocates it on this rank */
  int m[3];      /* owned points per dimension */
  int lo[3];     /* 1 where the block holds global point 0 */
  MPI_Comm comm;
  int nbr_lo[3], nbr_hi[3];
  long long msgs, bytes; /* halo messages and bytes this rank sent */
} Level;

typedef struct {
  Params prm;
  int rank, size, ndist;
  Level *lev;    /* nlev levels; lev[l].present = 0 for agglomerated levels off rank 0 */
  Level shadow;  /* level ndist cut in blocks over all ranks */
  int *gcounts, *gdispls;
  MPI_Comm cart;
  SkelTally *tally;
} Solver;

static double updated_points(const Level *L) {
  return (double)(L->m[0] - L->lo[0]) * (double)(L->m[1] - L->lo[1]) * (double)(L->m[2] - L->lo[2]);
}
static double allocated_points(const Level *L) {
  return (double)(L->m[0] + 2) * (double)(L->m[1] + 2) * (double)(L->m[2] + 2);
}

static void level_set(Level *L, const int m[3], const int off[3], MPI_Comm comm, const int nlo[3], const int nhi[3]) {
  int d;
  L->present = 1;
  for (d = 0; d < 3; d++) {
    L->m[d] = m[d];
    L->lo[d] = off[d] == 0 ? 1 : 0;
    L->nbr_lo[d] = nlo[d];
    L->nbr_hi[d] = nhi[d];
  }
  L->comm = comm;
  L->msgs = L->bytes = 0;
}

/* mg's exchange(): three phases, two directions each, one MPI_Sendrecv unless
 * both peers are MPI_PROC_NULL. */
static void exchange(Level *L, SkelTally *t) {
  const int mx = L->m[0], my = L->m[1], mz = L->m[2];
  int d, dir;
  for (d = 0; d < 3; d++) {
    for (dir = 0; dir < 2; dir++) {
      int dest = dir == 0 ? L->nbr_lo[d] : L->nbr_hi[d];
      int src = dir == 0 ? L->nbr_hi[d] : L->nbr_lo[d];
      int cnt = d == 0 ? my * mz : d == 1 ? (mx + 2) * mz : (mx + 2) * (my + 2);
      if (dest == MPI_PROC_NULL && src == MPI_PROC_NULL) continue;
      if (dest != MPI_PROC_NULL) {
        BSIM_Add_bytes(K_PACK_BYTES * cnt);
        L->msgs += 1;
        L->bytes += (long long)cnt * (long long)sizeof(double);
        tally_add(t, TALLY_SENDRECV, 8LL * cnt);
      }
      LMPI_Sendrecv(NULL, cnt, MPI_DOUBLE, dest, 10 + 2 * d + dir, NULL, cnt, MPI_DOUBLE, src, 10 + 2 * d + dir,
                    L->comm, MPI_STATUS_IGNORE);
      if (src != MPI_PROC_NULL) BSIM_Add_bytes(K_PACK_BYTES * cnt);
    }
  }
}

static void smooth(const Params *P, Level *L, int sweeps, SkelTally *t) {
  int s, colour;
  for (s = 0; s < sweeps; s++) {
    if (P->smoother == SMOOTH_JACOBI) {
      exchange(L, t);
      BSIM_Add_flops(K_JACOBI_FLOPS * updated_points(L));
      BSIM_Add_bytes(K_JACOBI_BYTES * updated_points(L));
    } else {
      for (colour = 0; colour < 2; colour++) {
        exchange(L, t);
        BSIM_Add_flops(K_RBGS_FLOPS * 0.5 * updated_points(L));
        BSIM_Add_bytes(K_RBGS_BYTES * updated_points(L));
      }
    }
  }
}

static void residual(Level *L, SkelTally *t) {
  exchange(L, t);
  BSIM_Add_flops(K_RESID_FLOPS * updated_points(L));
  BSIM_Add_bytes(K_RESID_BYTES * updated_points(L));
}

static void restrict_residual(const Params *P, const Level *C) {
  double pts = updated_points(C);
  BSIM_Add_flops((P->restriction == RESTRICT_FW ? K_FW_FLOPS : K_INJECT_FLOPS) * pts);
  BSIM_Add_bytes((P->restriction == RESTRICT_FW ? K_FW_BYTES : K_INJECT_BYTES) * pts);
}

static void vcycle(Solver *S, int l) {
  const Params *P = &S->prm;
  Level *L = &S->lev[l], *C;
  int to_root, cnt;
  if (l == P->nlev - 1) {
    smooth(P, L, P->coarse_sweeps, S->tally);
    return;
  }
  smooth(P, L, P->pre, S->tally);
  residual(L, S->tally);
  exchange(L, S->tally);
  to_root = (l + 1 == S->ndist);
  C = to_root ? &S->shadow : &S->lev[l + 1];
  restrict_residual(P, C);
  if (to_root) {
    cnt = C->m[0] * C->m[1] * C->m[2];
    BSIM_Add_bytes(16.0 * cnt);
    LMPI_Gatherv(NULL, cnt, MPI_DOUBLE, NULL, S->gcounts, S->gdispls, MPI_DOUBLE, 0, S->cart);
    tally_add(S->tally, TALLY_GATHERV, 8LL * cnt);
    if (S->rank == 0) {
      BSIM_Add_bytes(16.0 * cnt * S->size + 8.0 * allocated_points(&S->lev[l + 1]));
      vcycle(S, l + 1);
      BSIM_Add_bytes(16.0 * cnt * S->size);
    }
    LMPI_Scatterv(NULL, S->gcounts, S->gdispls, MPI_DOUBLE, NULL, cnt, MPI_DOUBLE, 0, S->cart);
    tally_add(S->tally, TALLY_SCATTERV, 8LL * cnt);
    BSIM_Add_bytes(16.0 * cnt);
  } else {
    BSIM_Add_bytes(8.0 * allocated_points(C));
    vcycle(S, l + 1);
  }
  exchange(C, S->tally);
  BSIM_Add_flops(K_PROLONG_FLOPS * updated_points(L));
  BSIM_Add_bytes(K_PROLONG_BYTES * updated_points(L));
  smooth(P, L, P->post, S->tally);
}

static void residual_norms(Solver *S) {
  Level *L = &S->lev[0];
  residual(L, S->tally);
  BSIM_Add_flops(K_NORM_FLOPS * updated_points(L));
  BSIM_Add_bytes(K_NORM_BYTES * updated_points(L));
  LMPI_Allreduce(NULL, NULL, 1, MPI_DOUBLE, MPI_SUM, S->cart);
  LMPI_Allreduce(NULL, NULL, 1, MPI_DOUBLE, MPI_MAX, S->cart);
  tally_add(S->tally, TALLY_ALLREDUCE, 16);
}

/* ------------------------------------------------------------- arguments */

static void usage(FILE *out) {
  fprintf(out,
          "usage: mg_skel [options]   (the BSIM skeleton of mg: mg's options)\n"
          "  --n N             cells per dimension, a power of two >= 4 (default 64)\n"
          "  --levels L        grid levels, 0 = automatic (log2(n)) (default 0)\n"
          "  --cycles C        V-cycles per solve (default 8)\n"
          "  --pre P, --post Q smoothing sweeps (default 2, 2)\n"
          "  --smoother S      jacobi or rbgs (default jacobi)\n"
          "  --restriction R   fw or injection (default fw)\n"
          "  --coarse-sweeps S sweeps on the coarsest level (default 32)\n"
          "  --min-local B     smallest block edge of a distributed coarse level (default 4)\n"
          "  --px/--py/--pz P  process grid; 0 = MPI_Dims_create (default 0)\n"
          "  --repeats R       timed solves (default 3)\n"
          "  --omega W, --init I, --min-reduction F   accepted, no effect on the skeleton\n"
          "  --help            this text\n");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Solver S;
  Params *P;
  SkelTally tally;
  int wrank, wsize, rc, d, l, rep, c;
  int dims[3], periods[3] = {0, 0, 0}, coords[3], nlo[3], nhi[3];
  double *times;
  long long *cnt_local, *cnt;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  memset(&S, 0, sizeof S);
  memset(&tally, 0, sizeof tally);
  S.tally = &tally;
  rc = mg_parse_args("mg_skel", argc, argv, wrank, &S.prm);
  if (rc == 1 && wrank == 0) usage(stdout);
  if (rc != 0) {
    MPI_Finalize();
    return rc == 1 ? 0 : 2;
  }
  P = &S.prm;
  S.rank = wrank;
  S.size = wsize;

  /* mg's process grid and its checks. */
  for (d = 0; d < 3; d++) dims[d] = P->p[d];
  if (!mg_fixed_dims_fit(P, wsize) || MPI_Dims_create(wsize, 3, dims) != MPI_SUCCESS) {
    mg_bad_dims("mg_skel", P, wsize, wrank);
    MPI_Finalize();
    return 2;
  }
  if (mg_check_split("mg_skel", P, dims, wrank)) {
    MPI_Finalize();
    return 2;
  }
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &S.cart);
  MPI_Comm_rank(S.cart, &S.rank);
  MPI_Cart_coords(S.cart, S.rank, 3, coords);
  for (d = 0; d < 3; d++) MPI_Cart_shift(S.cart, d, 1, &nlo[d], &nhi[d]);

  /* mg's agglomeration rule. */
  S.ndist = mg_distributed_levels(P, dims, wsize);

  /* The hierarchy: sizes and neighbours only. */
  S.lev = calloc((size_t)P->nlev, sizeof(Level));
  times = malloc((size_t)P->repeats * sizeof(double));
  cnt_local = calloc(2 * (size_t)P->nlev, sizeof(long long));
  cnt = calloc(2 * (size_t)P->nlev, sizeof(long long));
  if (!S.lev || !times || !cnt_local || !cnt) {
    fprintf(stderr, "mg_skel: rank %d: out of memory\n", wrank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (l = 0; l < P->nlev; l++) {
    static const int one[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
    int nl = P->n >> l, m[3], off[3];
    if (l < S.ndist) {
      mg_level_block(nl, dims, coords, m, off);
      level_set(&S.lev[l], m, off, S.cart, nlo, nhi);
    } else if (S.rank == 0) {
      int none[3] = {MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL};
      mg_level_block(nl, one, origin, m, off);
      level_set(&S.lev[l], m, off, MPI_COMM_SELF, none, none);
    }
  }
  if (S.ndist < P->nlev) {
    int m[3], off[3], q, block;
    mg_shadow_block(P, S.ndist, dims, coords, m, off);
    level_set(&S.shadow, m, off, S.cart, nlo, nhi);
    block = m[0] * m[1] * m[2];
    S.gcounts = malloc((size_t)wsize * sizeof(int));
    S.gdispls = malloc((size_t)wsize * sizeof(int));
    for (q = 0; q < wsize; q++) {
      S.gcounts[q] = block; /* equal blocks: all p_d divide n_l */
      S.gdispls[q] = q * block;
    }
  }

  for (rep = 0; rep < P->repeats; rep++) {
    double t0, t, tmax;
    BSIM_Add_flops(K_INIT_FLOPS * updated_points(&S.lev[0]));
    BSIM_Add_bytes(K_INIT_BYTES * allocated_points(&S.lev[0]));
    residual_norms(&S);
    for (l = 0; l < P->nlev; l++) S.lev[l].msgs = S.lev[l].bytes = 0;
    S.shadow.msgs = S.shadow.bytes = 0;
    LMPI_Barrier(S.cart);
    MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
    t0 = MPI_Wtime();
    for (c = 1; c <= P->cycles; c++) {
      vcycle(&S, 0);
      residual_norms(&S);
    }
    t = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    /* printed by rank 0: a real reduction */
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, S.cart);
    tally_add(&tally, TALLY_ALLREDUCE, 8);
    times[rep] = tmax;
  }
  /* Halo traffic of the last solve per level, summed over ranks: counted by
   * the skeleton as mg counts it, and reduced for real. */
  for (l = 0; l < P->nlev; l++) {
    const Level *L = l < S.ndist ? &S.lev[l] : (l == S.ndist ? &S.shadow : NULL);
    if (L && L->present) {
      cnt_local[2 * l] = L->msgs;
      cnt_local[2 * l + 1] = L->bytes;
    }
  }
  MPI_Allreduce(cnt_local, cnt, 2 * P->nlev, MPI_LONG_LONG, MPI_SUM, S.cart);
  tally_add(&tally, TALLY_ALLREDUCE, 16LL * P->nlev);
  BSIM_Add_flops(K_ERROR_FLOPS * updated_points(&S.lev[0]));
  BSIM_Add_bytes(K_ERROR_BYTES * updated_points(&S.lev[0]));
  LMPI_Allreduce(NULL, NULL, 1, MPI_DOUBLE, MPI_MAX, S.cart); /* the max error */
  tally_add(&tally, TALLY_ALLREDUCE, 8);

  if (S.rank == 0) {
    double *sorted = malloc((size_t)P->repeats * sizeof(double)), med;
    long long gb = S.ndist < P->nlev ? (long long)(P->n >> S.ndist) * (P->n >> S.ndist) * (P->n >> S.ndist) * 8 : 0;
    memcpy(sorted, times, (size_t)P->repeats * sizeof(double));
    qsort(sorted, (size_t)P->repeats, sizeof(double), cmp_double);
    med = P->repeats % 2 ? sorted[P->repeats / 2] : 0.5 * (sorted[P->repeats / 2 - 1] + sorted[P->repeats / 2]);
    printf("mg_skel: n=%d, %d levels (%d distributed), %d ranks as %d x %d x %d, %d cycles: simulated %.6g s per solve\n",
           P->n, P->nlev, S.ndist, wsize, dims[0], dims[1], dims[2], P->cycles, med);
    printf("{\"app\":\"mg_skel\",\"ranks\":%d,\"px\":%d,\"py\":%d,\"pz\":%d,\"n\":%d,\"levels\":%d,"
           "\"distributed_levels\":%d,\"agglomerated_levels\":%d,\"min_local\":%d,\"cycles\":%d,\"pre\":%d,"
           "\"post\":%d,\"smoother\":\"%s\",\"restriction\":\"%s\",\"coarse_sweeps\":%d,\"halo_messages_per_cycle\":[",
           wsize, dims[0], dims[1], dims[2], P->n, P->nlev, S.ndist, P->nlev - S.ndist, P->min_local, P->cycles,
           P->pre, P->post, P->smoother == SMOOTH_JACOBI ? "jacobi" : "rbgs",
           P->restriction == RESTRICT_FW ? "fw" : "injection", P->coarse_sweeps);
    for (l = 0; l < P->nlev; l++) printf("%s%lld", l ? "," : "", cnt[2 * l] / P->cycles);
    printf("],\"halo_bytes_per_cycle\":[");
    for (l = 0; l < P->nlev; l++) printf("%s%lld", l ? "," : "", cnt[2 * l + 1] / P->cycles);
    printf("],\"gather_bytes_per_cycle\":%lld,\"scatter_bytes_per_cycle\":%lld,\"allreduces_per_cycle\":2,", gb, gb);
    printf("\"time_s\":%.9g,\"times_s\":[", med);
    for (rep = 0; rep < P->repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"skeleton\"}\n");
    fflush(stdout);
    free(sorted);
  }
  tally_print(&tally, wrank);
  free(S.lev);
  free(S.gcounts);
  free(S.gdispls);
  free(times);
  free(cnt_local);
  free(cnt);
  MPI_Comm_free(&S.cart);
  MPI_Finalize();
  return 0;
}

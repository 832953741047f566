/* lu — blocked LU factorisation with partial pivoting of a dense random n x n
 * matrix on a P x Q process grid, 2D block-cyclic (HPL's algorithm, simplified;
 * see README.md), then a solve of Ax = b and HPL's scaled-residual check.
 *
 * Per block column k (jb = min(nb, n - k nb) columns starting at g0 = k nb):
 *   1. the process column owning the panel factors it: per column, the pivot
 *      is found by an MPI_Allreduce(MAXLOC) down the column, and the current
 *      row and the pivot row are swapped across the panel by an
 *      MPI_Allreduce(SUM) of both rows (each contributed by its owner, zeros
 *      elsewhere: exact, and the same call whoever owns them);
 *   2. the panel (its local rows, the jb x jb diagonal block and the pivots)
 *      is broadcast along each process row (MPI_Bcast from the panel column);
 *   3. the row swaps of the trailing columns and the broadcast of the jb
 *      U rows down each process column are one MPI_Allreduce(SUM) of the
 *      2 jb rows the swaps touch (the block's rows and the pivot rows), from
 *      which every rank of the column rebuilds the swapped rows;
 *   4. U12 = L11^-1 A12 (dtrsm, redundantly in every rank of the column) and
 *      the trailing update A22 -= L21 U12 (dgemm), through CBLAS.
 * Every call's count depends only on n, nb, P, Q and the rank, never on the
 * data: the BSIM skeleton makes the same calls.
 *
 * Rows swapped later are not swapped in earlier L columns (as HPL): the
 * forward solve applies each block's pivots to b before that block's L. The
 * check gathers the factors onto rank 0 (MPI_Gatherv, outside the timed
 * part), solves there and computes ||Ax - b||_inf / (||A||_inf ||x||_inf n eps)
 * with A and b regenerated from the seed. */
#include <cblas.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu_options.h"

#define RESIDUAL_THRESHOLD 16.0

typedef struct {
  LuOptions o;
  int rank, size, myrow, mycol;
  int mp, nq, lda; /* local rows, columns; leading dimension (column-major) */
  MPI_Comm rowcomm, colcomm;
} Grid;

/* Element (i, j) of the matrix, column n being b: uniform in [-0.5, 0.5) from a
 * hash of (seed, i, j), so any rank can regenerate any element. */
static double element(unsigned long long seed, int i, int j) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + ((uint64_t)(uint32_t)i << 32 | (uint32_t)j) + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static void *xmalloc(size_t bytes, int rank) {
  void *p = malloc(bytes ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "lu: rank %d: out of memory (%zu bytes)\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return p;
}

static void generate(const Grid *g, double *a) {
  int lr, lc;
  for (lc = 0; lc < g->nq; lc++) {
    int j = lu_global_index(lc, g->o.nb, g->mycol, g->o.q);
    for (lr = 0; lr < g->mp; lr++)
      a[lr + (size_t)lc * g->lda] = element(g->o.seed, lu_global_index(lr, g->o.nb, g->myrow, g->o.p), j);
  }
}

/* Factors panel columns [lcp, lcp+jb) of the panel column's ranks, rows from
 * global g0 down. Fills the jb x jb diagonal block `diag` (column-major, as it
 * ends up in rows g0.. of the matrix) and ipiv[g0 .. g0+jb). Returns the number
 * of zero pivots met. */
static int factor_panel(const Grid *g, double *a, int g0, int jb, int lcp, double *diag, int *ipiv, double *rows) {
  const int nb = g->o.nb, P = g->o.p;
  int j, c, lr, zero = 0;
  for (j = 0; j < jb; j++) {
    int gj = g0 + j, lr_j = lu_owned_below(gj, nb, g->myrow, P), piv, own_cur, own_piv;
    struct {
      double value;
      int index;
    } mine = {-1.0, INT_MAX}, best;
    double *col = a + (size_t)(lcp + j) * g->lda, pivot;
    for (lr = lr_j; lr < g->mp; lr++)
      if (fabs(col[lr]) > mine.value) {
        mine.value = fabs(col[lr]);
        mine.index = lu_global_index(lr, nb, g->myrow, P);
      }
    MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, g->colcomm);
    piv = best.index;
    ipiv[gj] = piv;
    /* swap rows gj and piv across the panel: rows[0..jb) the current row,
     * rows[jb..2jb) the pivot row, each from its owner */
    own_cur = lu_owner(gj, nb, P) == g->myrow;
    own_piv = lu_owner(piv, nb, P) == g->myrow;
    memset(rows, 0, sizeof(double) * 2 * (size_t)jb);
    if (own_cur)
      for (c = 0; c < jb; c++) rows[c] = a[lu_local_index(gj, nb, P) + (size_t)(lcp + c) * g->lda];
    if (own_piv)
      for (c = 0; c < jb; c++) rows[jb + c] = a[lu_local_index(piv, nb, P) + (size_t)(lcp + c) * g->lda];
    MPI_Allreduce(MPI_IN_PLACE, rows, 2 * jb, MPI_DOUBLE, MPI_SUM, g->colcomm);
    if (own_piv)
      for (c = 0; c < jb; c++) a[lu_local_index(piv, nb, P) + (size_t)(lcp + c) * g->lda] = rows[c];
    if (own_cur)
      for (c = 0; c < jb; c++) a[lu_local_index(gj, nb, P) + (size_t)(lcp + c) * g->lda] = rows[jb + c];
    /* row j of the block is final now: later steps only touch rows below it */
    for (c = 0; c < jb; c++) diag[j + (size_t)c * jb] = rows[jb + c];
    pivot = rows[jb + j];
    if (pivot == 0.0) {
      zero++;
      continue;
    }
    /* multipliers, then the rank-1 update of the rest of the panel */
    for (lr = lu_owned_below(gj + 1, nb, g->myrow, P); lr < g->mp; lr++) {
      double m = col[lr] / pivot;
      col[lr] = m;
      for (c = j + 1; c < jb; c++) a[lr + (size_t)(lcp + c) * g->lda] -= m * rows[jb + c];
    }
  }
  return zero;
}

/* Applies the block's pivots ipiv[g0 .. g0+jb) to the trailing local columns
 * [lct, nq) and returns the swapped block rows in u (jb x nqt, column-major):
 * one allreduce down the process column of the block's rows (old) and the
 * pivot rows, from which each rank rebuilds what its rows hold after the swaps. */
static void swap_trailing(const Grid *g, double *a, int g0, int jb, int lct, const int *ipiv, double *buf, double *u,
                          int *pos, int *content) {
  const int nb = g->o.nb, P = g->o.p, nqt = g->nq - lct;
  int i, c, npos = 0, k;
  memset(buf, 0, sizeof(double) * 2 * (size_t)jb * nqt);
  for (i = 0; i < jb; i++) {
    int rows[2] = {g0 + i, ipiv[g0 + i]}, s;
    for (s = 0; s < 2; s++)
      if (lu_owner(rows[s], nb, P) == g->myrow) {
        const double *src = a + lu_local_index(rows[s], nb, P) + (size_t)lct * g->lda;
        double *dst = buf + ((size_t)s * jb + i) * nqt;
        for (c = 0; c < nqt; c++) dst[c] = src[(size_t)c * g->lda];
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, buf, 2 * jb * nqt, MPI_DOUBLE, MPI_SUM, g->colcomm);
  /* the affected positions and which buffer row each holds: block row i is
   * buffer row i, a pivot row outside the block buffer row jb + (first i
   * naming it); then the swaps in order */
  for (i = 0; i < jb; i++) {
    pos[npos] = g0 + i;
    content[npos++] = i;
  }
  for (i = 0; i < jb; i++) {
    int p = ipiv[g0 + i], seen = p < g0 + jb;
    for (k = jb; k < npos && !seen; k++) seen = pos[k] == p;
    if (!seen) {
      pos[npos] = p;
      content[npos++] = jb + i;
    }
  }
  for (i = 0; i < jb; i++) {
    int p = ipiv[g0 + i], kp = p - g0, t;
    if (p >= g0 + jb)
      for (kp = jb; pos[kp] != p; kp++) {
      }
    t = content[i];
    content[i] = content[kp];
    content[kp] = t;
  }
  for (k = 0; k < npos; k++) {
    const double *src = buf + (size_t)content[k] * nqt;
    if (k < jb)
      for (c = 0; c < nqt; c++) u[k + (size_t)c * jb] = src[c];
    if (lu_owner(pos[k], nb, P) == g->myrow) {
      double *dst = a + lu_local_index(pos[k], nb, P) + (size_t)lct * g->lda;
      for (c = 0; c < nqt; c++) dst[(size_t)c * g->lda] = src[c];
    }
  }
}

/* The factorisation in place; ipiv (n entries) is filled on every rank.
 * Returns the number of zero pivots (the same on every rank of a column). */
static int factor(const Grid *g, double *a, int *ipiv) {
  const int n = g->o.n, nb = g->o.nb, P = g->o.p, Q = g->o.q;
  int g0, zero = 0;
  size_t panel_max = (size_t)g->mp * nb + (size_t)nb * nb + nb;
  double *panel = xmalloc(sizeof(double) * panel_max, g->rank);
  double *rows = xmalloc(sizeof(double) * 2 * (size_t)nb, g->rank);
  double *buf = xmalloc(sizeof(double) * 2 * (size_t)nb * (g->nq + 1), g->rank);
  double *u = xmalloc(sizeof(double) * (size_t)nb * (g->nq + 1), g->rank);
  int *pos = xmalloc(sizeof(int) * 2 * (size_t)nb, g->rank), *content = xmalloc(sizeof(int) * 2 * (size_t)nb, g->rank);
  for (g0 = 0; g0 < n; g0 += nb) {
    int jb = n - g0 < nb ? n - g0 : nb, kb = g0 / nb, pc = kb % Q;
    int lr0 = lu_owned_below(g0, nb, g->myrow, P), lr1 = lu_owned_below(g0 + jb, nb, g->myrow, P);
    int lct = lu_owned_below(g0 + jb, nb, g->mycol, Q), nqt = g->nq - lct;
    int mpk = g->mp - lr0, mpt = g->mp - lr1, count = mpk * jb + jb * jb + jb, i, c;
    double *diag = panel + (size_t)mpk * jb, *pivots = diag + (size_t)jb * jb;
    const double *l21;
    int ldl;
    if (g->mycol == pc) {
      int lcp = lu_owned_below(g0, nb, g->mycol, Q);
      zero += factor_panel(g, a, g0, jb, lcp, diag, ipiv, rows);
      for (c = 0; c < jb; c++) memcpy(panel + (size_t)c * mpk, a + lr0 + (size_t)(lcp + c) * g->lda, sizeof(double) * mpk);
      for (i = 0; i < jb; i++) pivots[i] = (double)ipiv[g0 + i];
    }
    MPI_Bcast(panel, count, MPI_DOUBLE, pc, g->rowcomm);
    if (g->mycol != pc)
      for (i = 0; i < jb; i++) ipiv[g0 + i] = (int)pivots[i];
    if (nqt == 0) continue;
    swap_trailing(g, a, g0, jb, lct, ipiv, buf, u, pos, content);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, jb, nqt, 1.0, diag, jb, u, jb);
    if (lu_owner(g0, nb, P) == g->myrow)
      for (c = 0; c < nqt; c++)
        for (i = 0; i < jb; i++) a[lu_local_index(g0 + i, nb, P) + (size_t)(lct + c) * g->lda] = u[i + (size_t)c * jb];
    if (mpt == 0) continue;
    /* L21: this rank's rows below the block, from the broadcast panel */
    l21 = panel + (lr1 - lr0);
    ldl = mpk;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, mpt, nqt, jb, -1.0, l21, ldl, u, jb, 1.0,
                a + lr1 + (size_t)lct * g->lda, g->lda);
  }
  free(panel);
  free(rows);
  free(buf);
  free(u);
  free(pos);
  free(content);
  return zero;
}

/* Rank 0: the gathered factors of every rank placed in a global column-major
 * n x n array. */
static void assemble(const Grid *g, const double *gathered, const int *displs, double *lu) {
  const int n = g->o.n, nb = g->o.nb, P = g->o.p, Q = g->o.q;
  int r, lr, lc;
  for (r = 0; r < g->size; r++) {
    int prow = r / Q, pcol = r % Q;
    int mp = lu_owned_below(n, nb, prow, P), nq = lu_owned_below(n, nb, pcol, Q), ld = mp > 0 ? mp : 1;
    for (lc = 0; lc < nq; lc++) {
      size_t j = (size_t)lu_global_index(lc, nb, pcol, Q);
      for (lr = 0; lr < mp; lr++)
        lu[(size_t)lu_global_index(lr, nb, prow, P) + j * n] = gathered[displs[r] + lr + (size_t)lc * ld];
    }
  }
}

/* Rank 0: solves with the factors and returns HPL's scaled residual of the
 * regenerated system (NaN if a pivot was zero). */
static double solve_and_check(const Grid *g, const double *lu, const int *ipiv, double *norm_a, double *norm_x) {
  const int n = g->o.n, nb = g->o.nb;
  double *x = xmalloc(sizeof(double) * n, 0), *r = xmalloc(sizeof(double) * n, 0), *rowsum = xmalloc(sizeof(double) * n, 0);
  double rmax = 0.0, amax = 0.0, xmax = 0.0, eps = DBL_EPSILON / 2.0, result;
  int i, j, g0;
  for (i = 0; i < n; i++) x[i] = element(g->o.seed, i, n);
  for (g0 = 0; g0 < n; g0 += nb) {
    int jb = n - g0 < nb ? n - g0 : nb;
    for (j = g0; j < g0 + jb; j++) {
      double t = x[j];
      x[j] = x[ipiv[j]];
      x[ipiv[j]] = t;
    }
    for (j = g0; j < g0 + jb; j++)
      for (i = j + 1; i < n; i++) x[i] -= lu[i + (size_t)j * n] * x[j];
  }
  for (j = n - 1; j >= 0; j--) {
    x[j] /= lu[j + (size_t)j * n];
    for (i = 0; i < j; i++) x[i] -= lu[i + (size_t)j * n] * x[j];
  }
  for (i = 0; i < n; i++) {
    r[i] = -element(g->o.seed, i, n);
    rowsum[i] = 0.0;
  }
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      double aij = element(g->o.seed, i, j);
      r[i] += aij * x[j];
      rowsum[i] += fabs(aij);
    }
  for (i = 0; i < n; i++) {
    if (fabs(r[i]) > rmax) rmax = fabs(r[i]);
    if (rowsum[i] > amax) amax = rowsum[i];
    if (fabs(x[i]) > xmax) xmax = fabs(x[i]);
  }
  *norm_a = amax;
  *norm_x = xmax;
  result = rmax / (amax * xmax * n * eps);
  if (!isfinite(result) || !isfinite(xmax)) result = NAN;
  free(x);
  free(r);
  free(rowsum);
  return result;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void usage(void) {
  printf("usage: lu [options]   blocked LU with partial pivoting, 2D block-cyclic on a P x Q grid (HPL-like)\n"
         "  --n N        matrix order (default 512, at most 8192: rank 0 gathers the factors for the check)\n"
         "  --nb NB      block size (default 32)\n"
         "  --p P, --q Q process grid, P*Q = ranks (default: the most square, P <= Q)\n"
         "  --seed S     matrix and right-hand side seed (default 1)\n"
         "  --repeats R  factorisations timed; time_s is their median (default 3)\n"
         "  --help       this text\n");
}

int main(int argc, char **argv) {
  Grid g;
  double *a, *times, t_med, resid = NAN, norm_a = 0.0, norm_x = 0.0;
  int *ipiv, rc, rep, zero = 0, passed;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.size);
  rc = lu_parse_args("lu", argc, argv, g.rank, &g.o);
  if (rc == 1) {
    if (g.rank == 0) usage();
    MPI_Finalize();
    return 0;
  }
  if (rc == 0) rc = lu_choose_grid("lu", &g.o, g.size, g.rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  g.myrow = g.rank / g.o.q;
  g.mycol = g.rank % g.o.q;
  g.mp = lu_owned_below(g.o.n, g.o.nb, g.myrow, g.o.p);
  g.nq = lu_owned_below(g.o.n, g.o.nb, g.mycol, g.o.q);
  g.lda = g.mp > 0 ? g.mp : 1;
  MPI_Comm_split(MPI_COMM_WORLD, g.myrow, g.mycol, &g.rowcomm);
  MPI_Comm_split(MPI_COMM_WORLD, g.mycol, g.myrow, &g.colcomm);

  a = xmalloc(sizeof(double) * (size_t)g.lda * (g.nq > 0 ? g.nq : 1), g.rank);
  ipiv = xmalloc(sizeof(int) * (size_t)g.o.n, g.rank);
  times = xmalloc(sizeof(double) * (size_t)g.o.repeats, g.rank);
  for (rep = 0; rep < g.o.repeats; rep++) {
    double t0, dt, dtmax;
    generate(&g, a);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* the timed region starts: apps/README.md */
    t0 = MPI_Wtime();
    zero = factor(&g, a, ipiv);
    dt = MPI_Wtime() - t0;
    MPI_Pcontrol(0); /* and ends */
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times[rep] = dtmax;
    if (g.rank == 0) printf("lu: factorisation %d: %.6f s\n", rep + 1, dtmax);
  }

  /* The check (untimed): the factors onto rank 0, a solve there. */
  {
    int *counts = NULL, *displs = NULL, r, total = 0;
    double *gathered = NULL, *lu = NULL;
    if (g.rank == 0) {
      counts = xmalloc(sizeof(int) * (size_t)g.size, 0);
      displs = xmalloc(sizeof(int) * (size_t)g.size, 0);
      for (r = 0; r < g.size; r++) {
        int mp = lu_owned_below(g.o.n, g.o.nb, r / g.o.q, g.o.p), nq = lu_owned_below(g.o.n, g.o.nb, r % g.o.q, g.o.q);
        counts[r] = mp * nq;
        displs[r] = total;
        total += counts[r];
      }
      gathered = xmalloc(sizeof(double) * (size_t)total, 0);
    }
    MPI_Gatherv(a, g.mp * g.nq, MPI_DOUBLE, gathered, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (g.rank == 0) {
      lu = xmalloc(sizeof(double) * (size_t)g.o.n * g.o.n, 0);
      assemble(&g, gathered, displs, lu);
      free(gathered);
      resid = zero ? NAN : solve_and_check(&g, lu, ipiv, &norm_a, &norm_x);
      free(lu);
      free(counts);
      free(displs);
    }
  }

  passed = resid < RESIDUAL_THRESHOLD; /* false for NaN */
  if (g.rank == 0) {
    double *sorted = xmalloc(sizeof(double) * (size_t)g.o.repeats, 0);
    int nblocks = (g.o.n + g.o.nb - 1) / g.o.nb;
    memcpy(sorted, times, sizeof(double) * (size_t)g.o.repeats);
    qsort(sorted, (size_t)g.o.repeats, sizeof(double), cmp_double);
    t_med = (g.o.repeats % 2) ? sorted[g.o.repeats / 2]
                              : 0.5 * (sorted[g.o.repeats / 2 - 1] + sorted[g.o.repeats / 2]);
    printf("lu: n %d, nb %d, grid %d x %d: median %.6f s, %.3f Gflop/s, scaled residual %.6g (%s)\n", g.o.n, g.o.nb,
           g.o.p, g.o.q, t_med, lu_flops(g.o.n) / t_med * 1e-9, resid, passed ? "passed" : "failed");
    printf("{\"app\":\"lu\",\"ranks\":%d,\"n\":%d,\"nb\":%d,\"p\":%d,\"q\":%d,\"seed\":%llu,\"blocks\":%d", g.size,
           g.o.n, g.o.nb, g.o.p, g.o.q, g.o.seed, nblocks);
    printf(",\"flops\":%.17g,\"gflops\":%.9g,\"zero_pivots\":%d,\"residual\":%.9g,\"threshold\":%g", lu_flops(g.o.n),
           lu_flops(g.o.n) / t_med * 1e-9, zero, isfinite(resid) ? resid : -1.0, RESIDUAL_THRESHOLD);
    printf(",\"norm_a\":%.17g,\"norm_x\":%.17g,\"repeats\":%d,\"time_s\":%.9g,\"times_s\":[", norm_a, norm_x,
           g.o.repeats, t_med);
    for (rep = 0; rep < g.o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"%s\"}\n", passed ? "passed" : "failed");
    fflush(stdout);
    free(sorted);
  }
  free(a);
  free(ipiv);
  free(times);
  MPI_Comm_free(&g.rowcomm);
  MPI_Comm_free(&g.colcomm);
  MPI_Finalize();
  return g.rank == 0 && !passed ? 1 : 0;
}

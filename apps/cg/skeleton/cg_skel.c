/* cg_skel — the BSIM skeleton of apps/cg/cg.c (Susukita et al., SC2008).
 *
 * Same options, same z-slab decomposition (nz = q*P + r, the first r ranks one
 * plane more), same MPI calls in the same order with the same peers, tags and
 * sizes as cg for the same arguments:
 *   - the halo exchange of one nx*ny plane with each z-neighbour
 *     (Irecv/Isend/Waitall; a Waitall of 0 requests on one rank, as cg),
 *   - one allreduce per dot product group (nz doubles per pair with the default
 *     --dot ordered, 1 with --dot plain), the barrier and the MPI_MAX allreduce
 *     of the time of every solve, the verification's two halo exchanges and six
 *     dot products;
 * with the compute replaced by BSIM_Add_flops/BSIM_Add_bytes counts taken from
 * cg's loops (SpMV: 2 flops per nonzero, streaming the CSR arrays; a dot
 * product 2 flops and 16 bytes per row; an axpy 2 flops and 24 bytes per row).
 *
 * What it cannot know: how many iterations CG takes to reach --tol (the
 * residual is data, and the skeleton has none). As in the BSIM paper the count
 * is a parameter: --iters K (cg's own fixed count), or --converged-iters K (the
 * count a real run to --tol took, its JSON "iterations"); without either, an
 * estimate from CG's Chebyshev bound on this matrix, ceil(ln(2/tol)/ln(1/rho)),
 * which is an upper bound (the JSON says "iterations_source":"estimate").
 *
 * Calls whose values are printed stay real MPI_* (the slowest-rank time of each
 * solve); everything else is LMPI_* with NULL buffers. Rank 0 prints one JSON
 * object with cg's message and flop keys and the simulated
 * times ("check":"skeleton"); then every rank prints its "skel_bytes" line
 * (skel_tally.h).
 *
 * Build: perfcast cc -O2 -I apps/include apps/cg/skeleton/cg_skel.c -o cg_skel
 * Run:   perfcast simulate --machine machines/generic-cluster.toml --np 8 -- ./cg_skel --n 64 --iters 50
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */
#include <bsim.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cg_options.h"
#include "skel_tally.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* One rank's share of the problem: the sizes cg's loops run over. */
typedef struct {
  int nx, ny, nz;
  int z0, nzl, plane;
  long long nloc, nnz; /* rows and nonzeros owned */
  int down, up;        /* z-neighbours, or -1 */
} Share;

static void usage(FILE *f) {
  fprintf(f,
          "usage: cg_skel [options]   (the BSIM skeleton of cg: cg's options, plus --converged-iters)\n"
          "  --n N              grid N x N x N (default 48)\n"
          "  --nx N, --ny N, --nz N   grid size per dimension (override --n); nz >= ranks\n"
          "  --tol T            cg's tolerance: only used to estimate the iteration count (default 1e-8)\n"
          "  --max-iters K      cg gives up after K iterations (default 10000)\n"
          "  --iters K          run exactly K iterations (cg's fixed count)\n"
          "  --converged-iters K  iterations a real cg run to --tol took (its JSON \"iterations\");\n"
          "                     without it or --iters: an estimate from CG's Chebyshev bound\n"
          "  --precond P        none | jacobi (default none)\n"
          "  --dot D            ordered | plain (default ordered)\n"
          "  --repeats R        solves timed, report the median (default 3)\n"
          "  --help             this text\n");
}

/* cg's setup(): the planes of rank r, and its nonzeros (7 per row, minus the
 * neighbours outside the grid: two per x-line, two per y-line, a whole plane at
 * the bottom and top of the grid). */
static Share share_of(const Options *o, int r, int size) {
  Share s;
  s.nx = o->nx;
  s.ny = o->ny;
  s.nz = o->nz;
  cg_slab(o->nz, size, r, &s.z0, &s.nzl);
  s.plane = o->nx * o->ny;
  s.nloc = (long long)s.plane * s.nzl;
  s.nnz = 7 * s.nloc - (long long)s.nzl * (2LL * o->ny + 2LL * o->nx) - (s.z0 == 0 ? s.plane : 0) -
          (s.z0 + s.nzl == o->nz ? s.plane : 0);
  s.down = r > 0 ? r - 1 : -1;
  s.up = r < size - 1 ? r + 1 : -1;
  return s;
}

/* Counts of cg's kernels on one rank (8-byte values, 4-byte indices). */
static double spmv_flops(const Share *s) { return 2.0 * (double)s->nnz; }
static double spmv_bytes(const Share *s) {
  /* val + col, rowptr, the extended x (its planes stay in cache), y written */
  return 12.0 * (double)s->nnz + 4.0 * (double)(s->nloc + 1) + 8.0 * (double)(s->nloc + 2LL * s->plane) +
         8.0 * (double)s->nloc;
}

/* Per-iteration flops of cg_solve on one rank: SpMV, p.q, two axpys, r.r (r.z
 * and z = D^-1 r under Jacobi), p = z + beta p. cg's flops_per_iter is their
 * sum over ranks. */
static double iteration_flops(const Share *s, int precond) {
  return spmv_flops(s) + (precond == PRECOND_JACOBI ? 13.0 : 10.0) * (double)s->nloc;
}

/* The halo exchange: cg's halo_exchange(), moving no data. */
static void halo_exchange(const Share *s, MPI_Comm comm, SkelTally *t) {
  MPI_Request req[4];
  int nreq = 0;
  if (s->down >= 0) {
    LMPI_Irecv(NULL, s->plane, MPI_DOUBLE, s->down, 1, comm, &req[nreq++]);
    LMPI_Isend(NULL, s->plane, MPI_DOUBLE, s->down, 0, comm, &req[nreq++]);
    tally_add(t, TALLY_ISEND, 8LL * s->plane);
  }
  if (s->up >= 0) {
    LMPI_Irecv(NULL, s->plane, MPI_DOUBLE, s->up, 0, comm, &req[nreq++]);
    LMPI_Isend(NULL, s->plane, MPI_DOUBLE, s->up, 1, comm, &req[nreq++]);
    tally_add(t, TALLY_ISEND, 8LL * s->plane);
  }
  LMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}

static void spmv(const Share *s) {
  BSIM_Add_flops(spmv_flops(s));
  BSIM_Add_bytes(spmv_bytes(s));
}

/* cg's dots(): nd dot products over the owned rows, `streams` distinct vectors
 * read, then one allreduce of nd*nz (ordered) or nd (plain) doubles. */
static void dots(const Share *s, int mode, int nd, int streams, MPI_Comm comm, SkelTally *t) {
  int count = mode == DOT_PLAIN ? nd : nd * s->nz;
  BSIM_Add_flops(2.0 * nd * (double)s->nloc);
  BSIM_Add_bytes(8.0 * streams * (double)s->nloc);
  LMPI_Allreduce(NULL, NULL, count, MPI_DOUBLE, MPI_SUM, comm);
  tally_add(t, TALLY_ALLREDUCE, 8LL * count);
}

/* axpy-like vector loops: `flops` and `bytes` per row. */
static void vector_op(const Share *s, double flops, double bytes) {
  BSIM_Add_flops(flops * (double)s->nloc);
  BSIM_Add_bytes(bytes * (double)s->nloc);
}

/* cg_solve() from x = 0 for `iterations` iterations; `converged`: the last one
 * stops at the convergence test, before the update of p (as cg's does). */
static void cg_solve(const Share *s, const Options *o, int iterations, int converged, MPI_Comm comm, SkelTally *t) {
  int k, jacobi = o->precond == PRECOND_JACOBI;
  vector_op(s, 0.0, 24.0); /* x = 0, r = b */
  if (jacobi) {
    vector_op(s, 1.0, 24.0); /* z = D^-1 r */
    dots(s, o->dot, 2, 2, comm, t);
  } else {
    dots(s, o->dot, 1, 1, comm, t);
  }
  vector_op(s, 0.0, 16.0); /* p = z */
  for (k = 0; k < iterations; k++) {
    halo_exchange(s, comm, t);
    spmv(s);
    dots(s, o->dot, 1, 2, comm, t); /* p.q */
    vector_op(s, 2.0, 24.0);         /* x += alpha p */
    vector_op(s, 2.0, 24.0);         /* r -= alpha q */
    if (jacobi) {
      vector_op(s, 1.0, 24.0);
      dots(s, o->dot, 2, 2, comm, t); /* r.z, r.r */
    } else {
      dots(s, o->dot, 1, 1, comm, t); /* r.r */
    }
    if (converged && k == iterations - 1) break;
    vector_op(s, 2.0, 24.0); /* p = z + beta p */
  }
}

/* CG's Chebyshev bound on this matrix: iterations for the A-norm error to fall
 * by tol, from the exact condition number (cg computes kappa the same way). */
static int estimated_iterations(const Options *o) {
  int n_d[3] = {o->nx, o->ny, o->nz}, d;
  double lmin = 0.0, lmax = 0.0, kappa, rho, k;
  for (d = 0; d < 3; d++) {
    double h = M_PI / (2.0 * (n_d[d] + 1.0));
    lmin += 4.0 * sin(h) * sin(h);
    lmax += 4.0 * cos(h) * cos(h);
  }
  kappa = lmax / lmin;
  rho = (sqrt(kappa) - 1.0) / (sqrt(kappa) + 1.0);
  k = rho > 0.0 ? ceil(log(2.0 / o->tol) / log(1.0 / rho)) : 1.0;
  if (k < 1.0) k = 1.0;
  return k > o->max_iters ? o->max_iters : (int)k;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Options o;
  Share s;
  SkelTally tally;
  int rank, size, rc, rep, r, iterations, converged;
  const char *source;
  double *times;
  MPI_Comm comm = MPI_COMM_WORLD;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  memset(&tally, 0, sizeof tally);
  rc = cg_parse_args("cg_skel", argc, argv, rank, 1, &o);
  if (rc == 1) {
    if (rank == 0) usage(stdout);
    MPI_Finalize();
    return 0;
  }
  if (rc == 0) rc = cg_check_decomposition("cg_skel", &o, size, rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }

  /* The iteration count: the one thing the skeleton is told, not computes. */
  if (o.iters > 0) {
    iterations = o.iters;
    converged = 0;
    source = "fixed";
  } else if (o.converged_iters > 0) {
    iterations = o.converged_iters > o.max_iters ? o.max_iters : o.converged_iters;
    converged = o.converged_iters <= o.max_iters;
    source = "given";
  } else {
    iterations = estimated_iterations(&o);
    converged = 1;
    source = "estimate";
  }

  s = share_of(&o, rank, size);
  times = malloc(sizeof(double) * (size_t)o.repeats);
  if (times == NULL) {
    fprintf(stderr, "cg_skel: rank %d: out of memory\n", rank);
    MPI_Abort(comm, 3);
  }

  /* Set-up (untimed in cg): CSR assembly, x* at every row, b = A x*, D^-1. */
  BSIM_Add_bytes(12.0 * (double)s.nnz + 4.0 * (double)(s.nloc + 1));
  vector_op(&s, 40.0, 8.0);
  halo_exchange(&s, comm, &tally);
  spmv(&s);
  BSIM_Add_bytes(12.0 * (double)s.nnz + 4.0 * (double)(s.nloc + 1) + 8.0 * (double)s.nloc);
  BSIM_Add_flops((double)s.nloc);

  for (rep = 0; rep < o.repeats; rep++) {
    double t0, dt, dtmax;
    LMPI_Barrier(comm);
    MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
    t0 = MPI_Wtime();
    cg_solve(&s, &o, iterations, converged, comm, &tally);
    dt = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    /* printed by rank 0: a real reduction */
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    tally_add(&tally, TALLY_ALLREDUCE, 8);
    times[rep] = dtmax;
  }

  /* cg's verification (untimed): b - A x, then six dot products and A e. */
  vector_op(&s, 0.0, 16.0);
  halo_exchange(&s, comm, &tally);
  spmv(&s);
  vector_op(&s, 1.0, 24.0);
  dots(&s, o.dot, 1, 1, comm, &tally); /* ||b - Ax|| */
  dots(&s, o.dot, 1, 1, comm, &tally); /* ||b|| */
  vector_op(&s, 1.0, 24.0);
  dots(&s, o.dot, 1, 1, comm, &tally); /* ||e|| */
  dots(&s, o.dot, 1, 1, comm, &tally); /* ||x*|| */
  halo_exchange(&s, comm, &tally);
  spmv(&s);
  dots(&s, o.dot, 1, 2, comm, &tally); /* e.Ae */
  dots(&s, o.dot, 1, 2, comm, &tally); /* x*.b */

  if (rank == 0) {
    long long nrows = (long long)o.nx * o.ny * o.nz, nnz = 0;
    double flops = 0.0, bytes = 0.0, *sorted = malloc(sizeof(double) * (size_t)o.repeats), t_med;
    /* Global figures, summed from every rank's share (no MPI call: cg makes none here). */
    for (r = 0; r < size; r++) {
      Share sr = share_of(&o, r, size);
      nnz += sr.nnz;
      flops += iteration_flops(&sr, o.precond);
      bytes += spmv_bytes(&sr) + (o.precond == PRECOND_JACOBI ? 128.0 : 96.0) * (double)sr.nloc;
    }
    memcpy(sorted, times, sizeof(double) * (size_t)o.repeats);
    qsort(sorted, (size_t)o.repeats, sizeof(double), cmp_double);
    t_med = (o.repeats % 2) ? sorted[o.repeats / 2] : 0.5 * (sorted[o.repeats / 2 - 1] + sorted[o.repeats / 2]);
    printf("cg_skel: %d x %d x %d grid (%lld rows, %lld nonzeros) on %d ranks, %d iterations (%s), "
           "simulated solve time %.6g s\n",
           o.nx, o.ny, o.nz, nrows, nnz, size, iterations, source, t_med);
    printf("{\"app\":\"cg_skel\",\"ranks\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d,\"rows\":%lld,\"nnz\":%lld", size, o.nx,
           o.ny, o.nz, nrows, nnz);
    printf(",\"decomposition\":\"z-slabs\",\"planes_min\":%d,\"planes_max\":%d", o.nz / size,
           o.nz / size + (o.nz % size ? 1 : 0));
    printf(",\"precond\":\"%s\",\"dot\":\"%s\"", o.precond == PRECOND_JACOBI ? "jacobi" : "none",
           o.dot == DOT_ORDERED ? "ordered" : "plain");
    printf(",\"iterations\":%d,\"iterations_source\":\"%s\",\"converged\":%s", iterations, source,
           converged ? "true" : "false");
    printf(",\"halo_messages_per_iter\":%d,\"halo_bytes_per_message\":%lld,\"allreduces_per_iter\":2",
           2 * (size - 1), (long long)s.plane * 8);
    printf(",\"allreduce_doubles_per_iter\":%d",
           (o.dot == DOT_ORDERED ? o.nz : 1) * (o.precond == PRECOND_JACOBI ? 3 : 2));
    printf(",\"flops_per_iter\":%.17g,\"bytes_per_iter\":%.17g,\"repeats\":%d,\"time_s\":%.9g,\"times_s\":[", flops,
           bytes, o.repeats, t_med);
    for (rep = 0; rep < o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"skeleton\"}\n");
    fflush(stdout);
    free(sorted);
  }
  tally_print(&tally, rank);
  free(times);
  MPI_Finalize();
  return 0;
}

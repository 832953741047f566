/* cg — conjugate gradient on the 7-point 3D Poisson matrix, stored in CSR.
 *
 * The matrix is the Dirichlet Laplacian of an nx x ny x nz grid (6 on the
 * diagonal, -1 for each of the up to six face neighbours; neighbours outside
 * the grid are dropped). Rows are distributed over ranks in contiguous blocks
 * of z-planes (z-slabs); with nz = q*P + r the first r ranks get q+1 planes.
 * Each rank stores its rows in CSR with local column indices into an extended
 * vector that holds its own planes plus one ghost plane below and one above.
 *
 * Right-hand side b = A x* for a known smooth solution x*, x0 = 0. CG (optionally
 * Jacobi-preconditioned) runs until ||r||/||b|| < tol, or a fixed iteration count.
 * Per iteration: one halo exchange (MPI_Isend/MPI_Irecv/MPI_Waitall of one
 * nx*ny plane to each z-neighbour) before the SpMV, and two MPI_Allreduce calls
 * (p.q, then r.r fused with r.z when preconditioned).
 *
 * Dot products are reproducible by default (--dot ordered): each rank computes
 * one partial sum per z-plane it owns, in a fixed order inside the plane; an
 * MPI_Allreduce of the nz-long array of per-plane partials (zero for planes a
 * rank does not own, so every element is a sum of one non-zero and zeros, which
 * is exact in any order) gives every rank the same partials, which are then summed
 * in plane order. All other arithmetic is row-local and decomposition-independent,
 * so every iterate is bitwise identical at any rank count. --dot plain uses the
 * usual one-double allreduce of rank partial sums.
 *
 * The last stdout line of rank 0 is a JSON object (see README.md).
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_options.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The distributed problem owned by one rank. */
typedef struct {
  int nx, ny, nz;  /* global grid */
  int z0, nzl;     /* first global plane owned, planes owned */
  int plane;       /* nx * ny */
  int nloc;        /* rows owned: plane * nzl */
  int next;        /* length of an extended vector: plane * (nzl + 2) */
  int *rowptr;     /* nloc + 1 */
  int *col;        /* local column: index into an extended vector */
  double *val;
  int rank, size;
  int down, up;    /* neighbour ranks owning planes z0-1 and z0+nzl, or -1 */
} Problem;

static void usage(FILE *f) {
  fprintf(f,
          "usage: cg [options]\n"
          "Conjugate gradient on the 7-point 3D Poisson matrix (Dirichlet, CSR), rows\n"
          "distributed over ranks in blocks of z-planes.\n"
          "  --n N              grid N x N x N (default 48)\n"
          "  --nx N, --ny N, --nz N   grid size per dimension (override --n); nz >= ranks\n"
          "  --tol T            stop when ||b - Ax||/||b|| < T (default 1e-8)\n"
          "  --max-iters K      give up after K iterations (default 10000; check fails)\n"
          "  --iters K          run exactly K iterations, ignore --tol (default: off)\n"
          "  --precond P        none | jacobi (default none)\n"
          "  --dot D            ordered (reproducible, per-plane partials) | plain (default ordered)\n"
          "  --repeats R        solve R times, report the median time (default 3)\n"
          "  --help             this text\n");
}

/* The known solution at a global grid point: smooth, zero-free inside, not an
 * eigenvector of A (so CG needs many iterations). */
static double exact_solution(const Problem *p, int i, int j, int gz) {
  double x = (i + 1.0) / (p->nx + 1.0), y = (j + 1.0) / (p->ny + 1.0), z = (gz + 1.0) / (p->nz + 1.0);
  return 64.0 * x * (1.0 - x) * y * (1.0 - y) * z * (1.0 - z) * (1.0 + 0.5 * x + 0.25 * y * z) + 0.1 * x * y;
}

static int setup(Problem *p, const Options *o, int rank, int size) {
  int k, j, i, row, nnz;
  p->nx = o->nx;
  p->ny = o->ny;
  p->nz = o->nz;
  p->rank = rank;
  p->size = size;
  cg_slab(o->nz, size, rank, &p->z0, &p->nzl);
  p->plane = o->nx * o->ny;
  p->nloc = p->plane * p->nzl;
  p->next = p->plane * (p->nzl + 2);
  p->down = rank > 0 ? rank - 1 : -1;
  p->up = rank < size - 1 ? rank + 1 : -1;
  p->rowptr = malloc(sizeof(int) * ((size_t)p->nloc + 1));
  p->col = malloc(sizeof(int) * 7 * (size_t)p->nloc);
  p->val = malloc(sizeof(double) * 7 * (size_t)p->nloc);
  if (!p->rowptr || !p->col || !p->val) return 1;
  /* Assemble: entries of a row in the order z-1, y-1, x-1, diagonal, x+1, y+1,
   * z+1 (the same order at any rank count). Column = index into the extended
   * vector whose plane 0 is the lower ghost plane and plane nzl+1 the upper. */
  nnz = 0;
  row = 0;
  p->rowptr[0] = 0;
  for (k = 0; k < p->nzl; k++) {
    int gz = p->z0 + k;
    for (j = 0; j < p->ny; j++) {
      for (i = 0; i < p->nx; i++) {
        int c = ((k + 1) * p->ny + j) * p->nx + i;
        if (gz > 0) { p->col[nnz] = c - p->plane; p->val[nnz] = -1.0; nnz++; }
        if (j > 0) { p->col[nnz] = c - p->nx; p->val[nnz] = -1.0; nnz++; }
        if (i > 0) { p->col[nnz] = c - 1; p->val[nnz] = -1.0; nnz++; }
        p->col[nnz] = c; p->val[nnz] = 6.0; nnz++;
        if (i < p->nx - 1) { p->col[nnz] = c + 1; p->val[nnz] = -1.0; nnz++; }
        if (j < p->ny - 1) { p->col[nnz] = c + p->nx; p->val[nnz] = -1.0; nnz++; }
        if (gz < p->nz - 1) { p->col[nnz] = c + p->plane; p->val[nnz] = -1.0; nnz++; }
        row++;
        p->rowptr[row] = nnz;
      }
    }
  }
  return 0;
}

/* Fill the ghost planes of an extended vector from the z-neighbours: send the
 * first owned plane down and the last owned plane up. */
static void halo_exchange(const Problem *p, double *xe) {
  MPI_Request req[4];
  int nreq = 0;
  if (p->down >= 0) {
    MPI_Irecv(xe, p->plane, MPI_DOUBLE, p->down, 1, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Isend(xe + p->plane, p->plane, MPI_DOUBLE, p->down, 0, MPI_COMM_WORLD, &req[nreq++]);
  }
  if (p->up >= 0) {
    MPI_Irecv(xe + (size_t)p->plane * (p->nzl + 1), p->plane, MPI_DOUBLE, p->up, 0, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Isend(xe + (size_t)p->plane * p->nzl, p->plane, MPI_DOUBLE, p->up, 1, MPI_COMM_WORLD, &req[nreq++]);
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}

/* y = A x, x extended (ghosts filled), y owned rows only. */
static void spmv(const Problem *p, const double *xe, double *y) {
  int row, e;
  for (row = 0; row < p->nloc; row++) {
    double s = 0.0;
    for (e = p->rowptr[row]; e < p->rowptr[row + 1]; e++) s += p->val[e] * xe[p->col[e]];
    y[row] = s;
  }
}

/* Global dot products of nd pairs (a[d], b[d]) over owned rows; out[d]. The
 * scratch buffers hold nd*nz doubles. */
static void dots(const Problem *p, int mode, int nd, const double *const *a, const double *const *b, double *out,
                 double *part, double *sum) {
  int d, k, i;
  if (mode == DOT_PLAIN) {
    double loc[4];
    for (d = 0; d < nd; d++) {
      double s = 0.0;
      for (i = 0; i < p->nloc; i++) s += a[d][i] * b[d][i];
      loc[d] = s;
    }
    MPI_Allreduce(loc, out, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return;
  }
  for (i = 0; i < nd * p->nz; i++) part[i] = 0.0;
  for (d = 0; d < nd; d++) {
    for (k = 0; k < p->nzl; k++) {
      const double *ak = a[d] + (size_t)k * p->plane, *bk = b[d] + (size_t)k * p->plane;
      double s = 0.0;
      for (i = 0; i < p->plane; i++) s += ak[i] * bk[i];
      part[d * p->nz + p->z0 + k] = s;
    }
  }
  /* Every element is one rank's partial plus zeros: exact in any order. */
  MPI_Allreduce(part, sum, nd * p->nz, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (d = 0; d < nd; d++) {
    double s = 0.0;
    for (k = 0; k < p->nz; k++) s += sum[d * p->nz + k];
    out[d] = s;
  }
}

static double dot1(const Problem *p, int mode, const double *a, const double *b, double *part, double *sum) {
  double out;
  dots(p, mode, 1, &a, &b, &out, part, sum);
  return out;
}

typedef struct {
  int iterations;
  double rr0, rr_last; /* squared recursive residual norms, first and last */
  int converged;
  int vanished;  /* the residual became exactly zero (fixed counts run into underflow) */
  int breakdown; /* p.Ap <= 0 or r.z < 0: not SPD, or NaN */
} SolveResult;

/* CG from x = 0. pe is the extended search direction; z is r when unpreconditioned. */
static SolveResult cg_solve(const Problem *p, const Options *o, const double *b, const double *dinv, double *x,
                            double *r, double *z, double *pe, double *q, double *part, double *sum) {
  SolveResult res = {0, 0.0, 0.0, 0, 0, 0};
  double *pp = pe + p->plane; /* owned part of p */
  double bb, rz, rr, pq, alpha, beta, tol2, two[2];
  int i, k, maxk = o->iters > 0 ? o->iters : o->max_iters;
  for (i = 0; i < p->nloc; i++) {
    x[i] = 0.0;
    r[i] = b[i];
  }
  if (o->precond == PRECOND_JACOBI) {
    const double *aa[2], *bv[2];
    for (i = 0; i < p->nloc; i++) z[i] = dinv[i] * r[i];
    aa[0] = r; bv[0] = z; aa[1] = r; bv[1] = r;
    dots(p, o->dot, 2, aa, bv, two, part, sum);
    rz = two[0];
    rr = two[1];
  } else {
    rr = dot1(p, o->dot, r, r, part, sum);
    rz = rr;
  }
  bb = rr; /* x0 = 0: r0 = b */
  res.rr0 = rr;
  res.rr_last = rr;
  tol2 = o->tol * o->tol * bb;
  for (i = 0; i < p->nloc; i++) pp[i] = z[i];
  if (o->iters == 0 && rr <= tol2) { res.converged = 1; return res; }
  for (k = 0; k < maxk; k++) {
    halo_exchange(p, pe);
    spmv(p, pe, q);
    pq = dot1(p, o->dot, pp, q, part, sum);
    if (!(pq > 0.0)) { res.breakdown = 1; break; }
    alpha = rz / pq;
    for (i = 0; i < p->nloc; i++) x[i] += alpha * pp[i];
    for (i = 0; i < p->nloc; i++) r[i] -= alpha * q[i];
    if (o->precond == PRECOND_JACOBI) {
      const double *aa[2], *bv[2];
      double rz_new;
      for (i = 0; i < p->nloc; i++) z[i] = dinv[i] * r[i];
      aa[0] = r; bv[0] = z; aa[1] = r; bv[1] = r;
      dots(p, o->dot, 2, aa, bv, two, part, sum);
      rz_new = two[0];
      rr = two[1];
      beta = rz_new / rz;
      rz = rz_new;
    } else {
      rr = dot1(p, o->dot, r, r, part, sum);
      beta = rr / rz;
      rz = rr;
    }
    res.iterations = k + 1;
    res.rr_last = rr;
    if (o->iters == 0 && rr <= tol2) { res.converged = 1; break; }
    if (rz == 0.0) { res.vanished = 1; break; }
    if (!(rz > 0.0)) { res.breakdown = 1; break; }
    for (i = 0; i < p->nloc; i++) pp[i] = z[i] + beta * pp[i];
  }
  return res;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Prints a JSON number, or null when it is not finite. */
static void json_num(const char *key, double v) {
  if (isfinite(v)) printf(",\"%s\":%.17g", key, v);
  else printf(",\"%s\":null", key);
}

int main(int argc, char **argv) {
  Options o;
  Problem p;
  int rank, size, rc, i, k, rep;
  double *b, *dinv, *x, *r, *z, *pe, *q, *part, *sum, *xs, *ee, *tmp, *times, *sorted;
  SolveResult res, first;
  int consistent = 1;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rc = cg_parse_args("cg", argc, argv, rank, 0, &o);
  if (rc == 1) {
    if (rank == 0) usage(stdout);
    MPI_Finalize();
    return 0;
  }
  if (rc == 0) rc = cg_check_decomposition("cg", &o, size, rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }

  if (setup(&p, &o, rank, size) != 0) {
    fprintf(stderr, "cg: rank %d: out of memory assembling %d rows\n", rank, p.nloc);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  b = malloc(sizeof(double) * (size_t)p.nloc);
  dinv = malloc(sizeof(double) * (size_t)p.nloc);
  x = malloc(sizeof(double) * (size_t)p.nloc);
  r = malloc(sizeof(double) * (size_t)p.nloc);
  z = o.precond == PRECOND_JACOBI ? malloc(sizeof(double) * (size_t)p.nloc) : r;
  q = malloc(sizeof(double) * (size_t)p.nloc);
  pe = calloc((size_t)p.next, sizeof(double));
  xs = calloc((size_t)p.next, sizeof(double)); /* known solution, extended */
  ee = calloc((size_t)p.next, sizeof(double)); /* error, extended */
  tmp = malloc(sizeof(double) * (size_t)p.nloc);
  part = malloc(sizeof(double) * 2 * (size_t)p.nz);
  sum = malloc(sizeof(double) * 2 * (size_t)p.nz);
  times = malloc(sizeof(double) * (size_t)o.repeats);
  sorted = malloc(sizeof(double) * (size_t)o.repeats);
  if (!sorted || !b || !dinv || !x || !r || !z || !q || !pe || !xs || !ee || !tmp || !part || !sum || !times) {
    fprintf(stderr, "cg: rank %d: out of memory for %d rows\n", rank, p.nloc);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  /* Known solution and b = A x*. Jacobi: inverse of the diagonal. */
  for (k = 0; k < p.nzl; k++) {
    int j, ii;
    for (j = 0; j < p.ny; j++)
      for (ii = 0; ii < p.nx; ii++) xs[((k + 1) * p.ny + j) * p.nx + ii] = exact_solution(&p, ii, j, p.z0 + k);
  }
  halo_exchange(&p, xs);
  spmv(&p, xs, b);
  for (i = 0; i < p.nloc; i++) {
    int e;
    double d = 0.0;
    for (e = p.rowptr[i]; e < p.rowptr[i + 1]; e++)
      if (p.col[e] == i + p.plane) d = p.val[e];
    dinv[i] = 1.0 / d;
  }

  memset(&first, 0, sizeof first);
  for (rep = 0; rep < o.repeats; rep++) {
    double t0, t1, dt, dtmax;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* the timed region starts: apps/README.md */
    t0 = MPI_Wtime();
    res = cg_solve(&p, &o, b, dinv, x, r, z, pe, q, part, sum);
    t1 = MPI_Wtime();
    MPI_Pcontrol(0); /* and ends */
    dt = t1 - t0;
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times[rep] = dtmax;
    if (rep == 0) first = res;
    else if (res.iterations != first.iterations || res.rr_last != first.rr_last) consistent = 0;
    if (rank == 0)
      printf("solve %d: %d iterations, %.6f s%s\n", rep + 1, res.iterations, dtmax,
             res.converged ? "" : (o.iters > 0 ? " (fixed count)" : " (not converged)"));
  }

  /* Verification, outside the timed region: true residual b - A x, error
   * against x*, and the A-norm of the error (e^T A e; ||e0||_A^2 = x*^T b). */
  {
    double bnorm, rtrue, errn, xsn, eAe, xAx, kappa, lmin = 0.0, lmax = 0.0, rho, bound = 0.0, floor_;
    double rel_true, rel_rec, err_rel, anorm_red, t_med, flops;
    double *xso = xs + p.plane, *eo = ee + p.plane;
    int n_d[3], d, passed;
    long long nrows = (long long)p.nx * p.ny * p.nz;
    long long nnz = 7 * nrows - 2 * ((long long)p.ny * p.nz + (long long)p.nx * p.nz + (long long)p.nx * p.ny);
    int pmin = p.nz / size, pmax = p.nz / size + (p.nz % size ? 1 : 0);

    for (i = 0; i < p.nloc; i++) pe[p.plane + i] = x[i];
    halo_exchange(&p, pe);
    spmv(&p, pe, tmp);
    for (i = 0; i < p.nloc; i++) tmp[i] = b[i] - tmp[i];
    rtrue = sqrt(dot1(&p, o.dot, tmp, tmp, part, sum));
    bnorm = sqrt(dot1(&p, o.dot, b, b, part, sum));
    for (i = 0; i < p.nloc; i++) eo[i] = xso[i] - x[i];
    errn = sqrt(dot1(&p, o.dot, eo, eo, part, sum));
    xsn = sqrt(dot1(&p, o.dot, xso, xso, part, sum));
    halo_exchange(&p, ee);
    spmv(&p, ee, tmp);
    eAe = dot1(&p, o.dot, eo, tmp, part, sum);
    xAx = dot1(&p, o.dot, xso, b, part, sum);

    /* Spectrum of A: eigenvalues sum_d 4 sin^2(m pi / (2 (n_d + 1))), m = 1..n_d.
     * Jacobi scales by the constant 1/6 and leaves kappa unchanged. */
    n_d[0] = p.nx; n_d[1] = p.ny; n_d[2] = p.nz;
    for (d = 0; d < 3; d++) {
      double h = M_PI / (2.0 * (n_d[d] + 1.0));
      lmin += 4.0 * sin(h) * sin(h);
      lmax += 4.0 * cos(h) * cos(h);
    }
    kappa = lmax / lmin;
    rho = (sqrt(kappa) - 1.0) / (sqrt(kappa) + 1.0);

    rel_true = rtrue / bnorm;
    rel_rec = sqrt(res.rr_last / res.rr0);
    err_rel = errn / xsn;
    anorm_red = sqrt(fabs(eAe) / xAx);
    if (o.iters > 0) {
      /* Fixed count: the A-norm error must have fallen at least as fast as CG's
       * Chebyshev bound 2 rho^K, floored where round-off takes over. */
      floor_ = 1e-12 * kappa;
      bound = 2.0 * pow(rho, (double)res.iterations);
      if (bound < floor_) bound = floor_;
      passed = !res.breakdown && (res.iterations == o.iters || res.vanished) && anorm_red < 1.0 &&
               anorm_red <= bound;
    } else {
      /* Tolerance: the recomputed residual is below tol, and the error obeys
       * ||e||/||x*|| <= kappa ||r||/||b||. */
      bound = o.tol;
      passed = res.converged && rel_true < o.tol && err_rel <= kappa * rel_true * (1.0 + 1e-6) + 1e-14;
    }
    passed = passed && consistent && isfinite(rel_true);

    for (rep = 0; rep < o.repeats; rep++) sorted[rep] = times[rep];
    qsort(sorted, (size_t)o.repeats, sizeof(double), cmp_double);
    t_med = (o.repeats % 2) ? sorted[o.repeats / 2] : 0.5 * (sorted[o.repeats / 2 - 1] + sorted[o.repeats / 2]);
    flops = 2.0 * (double)nnz + (o.precond == PRECOND_JACOBI ? 13.0 : 10.0) * (double)nrows;

    if (rank == 0) {
      printf("cg: %d x %d x %d grid (%lld rows, %lld nonzeros) on %d ranks, z-slabs of %d..%d planes\n", p.nx, p.ny,
             p.nz, nrows, nnz, size, pmin, pmax);
      printf("precond %s, dot %s, %s\n", o.precond == PRECOND_JACOBI ? "jacobi" : "none",
             o.dot == DOT_ORDERED ? "ordered" : "plain", o.iters > 0 ? "fixed iteration count" : "to tolerance");
      printf("iterations %d, ||r0|| %.6e, true ||b-Ax|| %.6e, reduction %.3e (recursive %.3e)\n", res.iterations,
             bnorm, rtrue, rel_true, rel_rec);
      printf("error vs known solution: relative %.3e, A-norm reduction %.3e; kappa %.4g\n", err_rel, anorm_red,
             kappa);
      if (o.iters > 0)
        printf("check: A-norm error reduction %.3e <= bound %.3e (2 rho^K, floor 1e-12 kappa): %s\n", anorm_red,
               bound, passed ? "passed" : "FAILED");
      else
        printf("check: true relative residual %.3e < tol %.3e and error <= kappa*residual: %s\n", rel_true, o.tol,
               passed ? "passed" : "FAILED");
      if (!consistent) printf("check: repeats disagreed (iterations or residual)\n");
      printf("solve time: median %.6f s over %d repeats\n", t_med, o.repeats);

      printf("{\"app\":\"cg\",\"ranks\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d,\"rows\":%lld,\"nnz\":%lld", size, p.nx, p.ny,
             p.nz, nrows, nnz);
      printf(",\"decomposition\":\"z-slabs\",\"planes_min\":%d,\"planes_max\":%d", pmin, pmax);
      printf(",\"precond\":\"%s\",\"dot\":\"%s\"", o.precond == PRECOND_JACOBI ? "jacobi" : "none",
             o.dot == DOT_ORDERED ? "ordered" : "plain");
      json_num("tol", o.tol);
      printf(",\"max_iters\":%d", o.max_iters);
      if (o.iters > 0) printf(",\"fixed_iters\":%d", o.iters);
      else printf(",\"fixed_iters\":null");
      printf(",\"iterations\":%d,\"converged\":%s,\"residual_vanished\":%s", res.iterations,
             res.converged ? "true" : "false", res.vanished ? "true" : "false");
      json_num("initial_residual", bnorm);
      json_num("final_residual", rtrue);
      json_num("residual_reduction", rel_true);
      json_num("recursive_residual_reduction", rel_rec);
      json_num("error_rel", err_rel);
      json_num("error_anorm_reduction", anorm_red);
      json_num("condition_number", kappa);
      json_num("check_bound", bound);
      printf(",\"halo_messages_per_iter\":%d,\"halo_bytes_per_message\":%lld,\"allreduces_per_iter\":2",
             2 * (size - 1), (long long)p.plane * 8);
      printf(",\"allreduce_doubles_per_iter\":%d",
             (o.dot == DOT_ORDERED ? p.nz : 1) * (o.precond == PRECOND_JACOBI ? 3 : 2));
      json_num("flops_per_iter", flops);
      printf(",\"repeats\":%d", o.repeats);
      json_num("time_s", t_med);
      printf(",\"times_s\":[");
      for (rep = 0; rep < o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
      printf("],\"check\":\"%s\"}\n", passed ? "passed" : "failed");
      fflush(stdout);
    }
    free(p.rowptr); free(p.col); free(p.val);
    free(b); free(dinv); free(x); free(r); if (z != r) free(z); free(q); free(pe); free(xs); free(ee); free(tmp);
    free(part); free(sum); free(times); free(sorted);
    MPI_Finalize();
    return passed ? 0 : 1;
  }
}

/* wave3d — 3D wave propagation with a 7-point stencil and a six-face halo
 * exchange: the kind of code Kleymenov & Popova (2021) analysed statically on
 * a Power8 cluster. Plain loop-nest C on purpose: perfcast's static analyser
 * reads this program's LLVM IR.
 *
 * Model: u_tt = c^2 (u_xx + u_yy + u_zz) on the unit cube, u = 0 on its faces.
 * The global grid has nx*ny*nz interior points at x_i = (i+1) hx,
 * hx = 1/(nx+1) (likewise y, z); the zero boundary lives in the ghost layer of
 * the blocks at the global edges. Leapfrog in time:
 *   u_next = 2u - u_prev + c^2 dt^2 lap(u).
 *
 * The initial state is a sum of two eigenmodes of the discrete Laplacian, so
 * the exact discrete solution after any number of steps is known in closed
 * form (each mode's amplitude follows cos(n theta_k)); the check compares
 * against it. See README.md.
 *
 * Every grid point is computed by the same arithmetic whatever the process
 * grid, so the final state is bit-identical across decompositions and its
 * fixed-point checksum (an integer sum) is too. */

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave3d_options.h"

/* No fused multiply-add: keeps the results identical across machines and
 * between the vectorised and scalar versions of a loop. */
#pragma STDC FP_CONTRACT OFF

#define PI 3.14159265358979323846
#define CFL 0.5
#define CSPEED 1.0
/* fixed-point scale of the checksum: 2^40 */
#define CHECK_SCALE 1099511627776.0

/* The two modes of the initial state: amplitude and wave numbers. */
static const double mode_amp[2] = {1.0, 0.5};
static const int mode_k[2][3] = {{1, 1, 1}, {2, 3, 4}};

static void usage(FILE *f) {
  fprintf(f,
          "usage: wave3d [options]\n"
          "  --n N          cube grid N x N x N (default 64)\n"
          "  --nx/--ny/--nz N  grid points along one axis (override --n)\n"
          "  --steps S      time steps (default 20; 0 runs set-up only, for count baselines)\n"
          "  --px/--py/--pz P  processes along one axis (default: MPI_Dims_create;\n"
          "                 the product must equal the number of ranks)\n"
          "  --repeats R    time the step loop R times from the same initial state,\n"
          "                 report the median (default 3)\n"
          "  --help         this text\n"
          "Last stdout line (rank 0): one JSON object with the result.\n");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of n values (n >= 1); returns 0 if out of memory. */
static double median_of(const double *v, int n) {
  double *sorted = malloc((size_t)n * sizeof(double));
  double median;
  if (sorted == NULL) return 0;
  memcpy(sorted, v, (size_t)n * sizeof(double));
  qsort(sorted, (size_t)n, sizeof(double), cmp_double);
  median = (n % 2) ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  free(sorted);
  return median;
}

static void print_array(const char *key, const double *v, int n) {
  int r;
  printf(",\"%s\":[", key);
  for (r = 0; r < n; r++) printf("%s%.9g", r ? "," : "", v[r]);
  printf("]");
}

/* Local arrays: (lx+2) x (ly+2) x (lz+2) with one ghost layer; z is the
 * contiguous index. */
#define IDX(i, j, k) (((size_t)(i) * (size_t)(ly + 2) + (size_t)(j)) * (size_t)(lz + 2) + (size_t)(k))

/* Face buffers, in the order x-, x+, y-, y+, z-, z+. */
enum { XLO, XHI, YLO, YHI, ZLO, ZHI };

static void pack_faces(const double *u, int lx, int ly, int lz, double **sbuf) {
  int i, j, k;
  size_t m;
  m = 0;
  for (j = 1; j <= ly; j++)
    for (k = 1; k <= lz; k++) {
      sbuf[XLO][m] = u[IDX(1, j, k)];
      sbuf[XHI][m] = u[IDX(lx, j, k)];
      m++;
    }
  m = 0;
  for (i = 1; i <= lx; i++)
    for (k = 1; k <= lz; k++) {
      sbuf[YLO][m] = u[IDX(i, 1, k)];
      sbuf[YHI][m] = u[IDX(i, ly, k)];
      m++;
    }
  m = 0;
  for (i = 1; i <= lx; i++)
    for (j = 1; j <= ly; j++) {
      sbuf[ZLO][m] = u[IDX(i, j, 1)];
      sbuf[ZHI][m] = u[IDX(i, j, lz)];
      m++;
    }
}

/* Unpacks received faces into the ghost layer; faces at the global edge
 * (neighbour MPI_PROC_NULL) are left alone: their ghosts stay zero. */
static void unpack_faces(double *u, int lx, int ly, int lz, double **rbuf, const int *nbr) {
  int i, j, k;
  size_t m;
  m = 0;
  for (j = 1; j <= ly; j++)
    for (k = 1; k <= lz; k++) {
      if (nbr[XLO] != MPI_PROC_NULL) u[IDX(0, j, k)] = rbuf[XLO][m];
      if (nbr[XHI] != MPI_PROC_NULL) u[IDX(lx + 1, j, k)] = rbuf[XHI][m];
      m++;
    }
  m = 0;
  for (i = 1; i <= lx; i++)
    for (k = 1; k <= lz; k++) {
      if (nbr[YLO] != MPI_PROC_NULL) u[IDX(i, 0, k)] = rbuf[YLO][m];
      if (nbr[YHI] != MPI_PROC_NULL) u[IDX(i, ly + 1, k)] = rbuf[YHI][m];
      m++;
    }
  m = 0;
  for (i = 1; i <= lx; i++)
    for (j = 1; j <= ly; j++) {
      if (nbr[ZLO] != MPI_PROC_NULL) u[IDX(i, j, 0)] = rbuf[ZLO][m];
      if (nbr[ZHI] != MPI_PROC_NULL) u[IDX(i, j, lz + 1)] = rbuf[ZHI][m];
      m++;
    }
}

/* Six-face halo exchange of u: pack, Irecv/Isend with the six neighbours,
 * Waitall, unpack. The message to the x+ neighbour carries tag XHI and is
 * received there as its x- face (tag XHI too), and so on. The seconds spent in
 * the MPI calls (from the first Irecv to the end of Waitall) are added to
 * *mpi_s: the rest of a step is this rank's compute (its "calc"), which the
 * skeleton (skeleton/wave3d_skel.c) replaces by a fitted time. */
static void halo_exchange(double *u, int lx, int ly, int lz, double **sbuf, double **rbuf,
                          const int *count, const int *nbr, MPI_Comm comm, double *mpi_s) {
  MPI_Request req[12];
  int f;
  double t0;
  pack_faces(u, lx, ly, lz, sbuf);
  t0 = MPI_Wtime();
  for (f = 0; f < 6; f++) {
    /* the face f arrives from neighbour f, which sent it as its opposite face */
    int tag_in = f ^ 1;
    MPI_Irecv(rbuf[f], count[f], MPI_DOUBLE, nbr[f], tag_in, comm, &req[f]);
  }
  for (f = 0; f < 6; f++) MPI_Isend(sbuf[f], count[f], MPI_DOUBLE, nbr[f], f, comm, &req[6 + f]);
  MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
  *mpi_s += MPI_Wtime() - t0;
  unpack_faces(u, lx, ly, lz, rbuf, nbr);
}

/* One leapfrog step on the interior points:
 * un = 2u - up + cx (u[i-1]+u[i+1]-2u) + cy (...) + cz (...),
 * with cx = c^2 dt^2 / hx^2 etc. */
static void leapfrog_step(double *restrict un, const double *restrict u, const double *restrict up,
                          int lx, int ly, int lz, double cx, double cy, double cz) {
  const size_t sx = (size_t)(ly + 2) * (size_t)(lz + 2);
  const size_t sy = (size_t)(lz + 2);
  int i, j, k;
  for (i = 1; i <= lx; i++)
    for (j = 1; j <= ly; j++)
      for (k = 1; k <= lz; k++) {
        size_t p = IDX(i, j, k);
        double c2 = 2.0 * u[p];
        double lapx = u[p - sx] + u[p + sx] - c2;
        double lapy = u[p - sy] + u[p + sy] - c2;
        double lapz = u[p - 1] + u[p + 1] - c2;
        un[p] = c2 - up[p] + cx * lapx + cy * lapy + cz * lapz;
      }
}

int main(int argc, char **argv) {
  struct wave3d_options opt;
  int rank, size, bad;
  int dims[3], periods[3] = {0, 0, 0}, coords[3];
  int nbr[6], count[6];
  int x0, y0, z0, lx, ly, lz;
  int i, j, k, m, f, r;
  double hx, hy, hz, dt, cx, cy, cz;
  double cos_theta[2], amp_end[2];
  double *u0, *up0, *ua, *ub, *uc, *sbuf[6], *rbuf[6];
  double *times, *calcs, *mpis;
  size_t npts;
  MPI_Comm cart;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Every rank parses the same argv, so every rank takes the same branch. */
  if (wave3d_parse_args("wave3d", argc, argv, &opt, rank)) {
    MPI_Finalize();
    return 2;
  }
  if (opt.help) {
    if (rank == 0) usage(stdout);
    MPI_Finalize();
    return 0;
  }

  /* Process grid: given --px/--py/--pz are kept, the rest chosen by MPI. */
  if (wave3d_check_fixed_dims("wave3d", &opt, size, rank)) {
    MPI_Finalize();
    return 2;
  }
  dims[0] = opt.px;
  dims[1] = opt.py;
  dims[2] = opt.pz;
  MPI_Dims_create(size, 3, dims);
  if (wave3d_check_dims("wave3d", dims, &opt, rank)) {
    MPI_Finalize();
    return 2;
  }
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  MPI_Cart_shift(cart, 0, 1, &nbr[XLO], &nbr[XHI]);
  MPI_Cart_shift(cart, 1, 1, &nbr[YLO], &nbr[YHI]);
  MPI_Cart_shift(cart, 2, 1, &nbr[ZLO], &nbr[ZHI]);

  wave3d_block(opt.nx, dims[0], coords[0], &x0, &lx);
  wave3d_block(opt.ny, dims[1], coords[1], &y0, &ly);
  wave3d_block(opt.nz, dims[2], coords[2], &z0, &lz);

  count[XLO] = count[XHI] = ly * lz;
  count[YLO] = count[YHI] = lx * lz;
  count[ZLO] = count[ZHI] = lx * ly;

  hx = 1.0 / (opt.nx + 1);
  hy = 1.0 / (opt.ny + 1);
  hz = 1.0 / (opt.nz + 1);
  dt = CFL / (CSPEED * sqrt(1.0 / (hx * hx) + 1.0 / (hy * hy) + 1.0 / (hz * hz)));
  cx = CSPEED * CSPEED * dt * dt / (hx * hx);
  cy = CSPEED * CSPEED * dt * dt / (hy * hy);
  cz = CSPEED * CSPEED * dt * dt / (hz * hz);

  /* Mode k is an eigenvector of the discrete Laplacian with eigenvalue
   * lambda_k = -sum_d 4/h_d^2 sin^2(k_d pi h_d / 2); leapfrog multiplies its
   * amplitude by the Chebyshev recurrence of cos(theta_k) = 1 + c^2 dt^2 lambda_k / 2.
   * Starting from u_prev = cos(theta_k) u0 (zero initial velocity), the
   * amplitude after n steps is cos(n theta_k). */
  for (m = 0; m < 2; m++) {
    double sx = sin(mode_k[m][0] * PI * hx / 2), sy = sin(mode_k[m][1] * PI * hy / 2),
           sz = sin(mode_k[m][2] * PI * hz / 2);
    double lambda = -4.0 * (sx * sx / (hx * hx) + sy * sy / (hy * hy) + sz * sz / (hz * hz));
    cos_theta[m] = 1.0 + 0.5 * CSPEED * CSPEED * dt * dt * lambda;
    amp_end[m] = cos(opt.steps * acos(cos_theta[m]));
  }

  npts = (size_t)(lx + 2) * (size_t)(ly + 2) * (size_t)(lz + 2);
  u0 = calloc(npts, sizeof(double));
  up0 = calloc(npts, sizeof(double));
  ua = calloc(npts, sizeof(double));
  ub = calloc(npts, sizeof(double));
  uc = calloc(npts, sizeof(double));
  times = calloc((size_t)opt.repeats, sizeof(double));
  calcs = calloc((size_t)opt.repeats, sizeof(double));
  mpis = calloc((size_t)opt.repeats, sizeof(double));
  bad = (u0 == NULL || up0 == NULL || ua == NULL || ub == NULL || uc == NULL || times == NULL ||
         calcs == NULL || mpis == NULL);
  for (f = 0; f < 6; f++) {
    sbuf[f] = malloc((size_t)count[f] * sizeof(double));
    rbuf[f] = malloc((size_t)count[f] * sizeof(double));
    bad = bad || sbuf[f] == NULL || rbuf[f] == NULL;
  }
  if (bad) {
    fprintf(stderr, "wave3d: rank %d: out of memory for a %d x %d x %d block\n", rank, lx, ly, lz);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  /* Initial state from global coordinates: 6 sin per interior point. */
  for (i = 1; i <= lx; i++)
    for (j = 1; j <= ly; j++)
      for (k = 1; k <= lz; k++) {
        double x = (x0 + i) * hx, y = (y0 + j) * hy, z = (z0 + k) * hz;
        double phi1 = sin(mode_k[0][0] * PI * x) * sin(mode_k[0][1] * PI * y) * sin(mode_k[0][2] * PI * z);
        double phi2 = sin(mode_k[1][0] * PI * x) * sin(mode_k[1][1] * PI * y) * sin(mode_k[1][2] * PI * z);
        u0[IDX(i, j, k)] = mode_amp[0] * phi1 + mode_amp[1] * phi2;
        up0[IDX(i, j, k)] = mode_amp[0] * cos_theta[0] * phi1 + mode_amp[1] * cos_theta[1] * phi2;
      }

  /* The timed step loop, R times from the same initial state. */
  double *u = NULL, *uprev = NULL, *unext = NULL;
  int64_t first_sum = 0;
  int repeats_agree = 1;
  for (r = 0; r < opt.repeats; r++) {
    double t0, t1, t[3], tmax[3], mpi_s = 0;
    int s;
    uint64_t local = 0, global = 0;
    memcpy(ua, u0, npts * sizeof(double));
    memcpy(ub, up0, npts * sizeof(double));
    u = ua;
    uprev = ub;
    unext = uc;
    MPI_Barrier(cart);
    MPI_Pcontrol(1); /* the timed region starts: apps/README.md */
    t0 = MPI_Wtime();
    for (s = 0; s < opt.steps; s++) {
      double *tmp;
      halo_exchange(u, lx, ly, lz, sbuf, rbuf, count, nbr, cart, &mpi_s);
      leapfrog_step(unext, u, uprev, lx, ly, lz, cx, cy, cz);
      tmp = uprev;
      uprev = u;
      u = unext;
      unext = tmp;
    }
    t1 = MPI_Wtime();
    MPI_Pcontrol(0); /* and ends */
    /* loop time, its compute (the loop minus the MPI calls), its MPI calls;
     * each the slowest rank's */
    t[0] = t1 - t0;
    t[1] = t[0] - mpi_s;
    t[2] = mpi_s;
    MPI_Allreduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, cart);
    times[r] = tmax[0];
    calcs[r] = tmax[1];
    mpis[r] = tmax[2];

    /* Fixed-point image of the final state, summed modulo 2^64 (unsigned
     * integer sums are exact and order-independent). */
    for (i = 1; i <= lx; i++)
      for (j = 1; j <= ly; j++)
        for (k = 1; k <= lz; k++) local += (uint64_t)llround(u[IDX(i, j, k)] * CHECK_SCALE);
    MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, cart);
    if (r == 0) first_sum = (int64_t)global;
    else if ((int64_t)global != first_sum) repeats_agree = 0;
  }

  /* The check: the final state against the exact discrete solution
   * (6 sin per interior point), and a non-trivial initial state. */
  double loc[4] = {0, 0, 0, 0}, glob[4]; /* max|u-exact|, max|u|, max|u0|, sum u^2 */
  for (i = 1; i <= lx; i++)
    for (j = 1; j <= ly; j++)
      for (k = 1; k <= lz; k++) {
        double x = (x0 + i) * hx, y = (y0 + j) * hy, z = (z0 + k) * hz;
        double phi1 = sin(mode_k[0][0] * PI * x) * sin(mode_k[0][1] * PI * y) * sin(mode_k[0][2] * PI * z);
        double phi2 = sin(mode_k[1][0] * PI * x) * sin(mode_k[1][1] * PI * y) * sin(mode_k[1][2] * PI * z);
        double exact = mode_amp[0] * amp_end[0] * phi1 + mode_amp[1] * amp_end[1] * phi2;
        double v = u[IDX(i, j, k)];
        double e = fabs(v - exact);
        if (e > loc[0]) loc[0] = e;
        if (fabs(v) > loc[1]) loc[1] = fabs(v);
        if (fabs(u0[IDX(i, j, k)]) > loc[2]) loc[2] = fabs(u0[IDX(i, j, k)]);
        loc[3] += v * v;
      }
  MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_MAX, cart);
  MPI_Allreduce(&loc[3], &glob[3], 1, MPI_DOUBLE, MPI_SUM, cart);

  /* Halo traffic of one step: messages to real neighbours and their bytes. */
  long long my_msgs = 0, my_bytes = 0, tot[2], mx[2];
  for (f = 0; f < 6; f++)
    if (nbr[f] != MPI_PROC_NULL) {
      my_msgs++;
      my_bytes += (long long)count[f] * (long long)sizeof(double);
    }
  {
    long long mine[2] = {my_msgs, my_bytes};
    MPI_Reduce(mine, tot, 2, MPI_LONG_LONG, MPI_SUM, 0, cart);
    MPI_Reduce(mine, mx, 2, MPI_LONG_LONG, MPI_MAX, 0, cart);
  }

  if (rank == 0) {
    double max_err = glob[0], max_abs = glob[1], max_u0 = glob[2];
    double l2 = sqrt(glob[3] / ((double)opt.nx * opt.ny * opt.nz));
    double tol = 1e-12 * (opt.steps + 10.0);
    int passed = (max_err <= tol) && (max_u0 >= 0.5) && repeats_agree;
    double median = median_of(times, opt.repeats);

    printf("wave3d: %d x %d x %d grid on %d ranks (%d x %d x %d process grid), %d steps, dt %.6g\n",
           opt.nx, opt.ny, opt.nz, size, dims[0], dims[1], dims[2], opt.steps, dt);
    printf("step loop: median %.6f s over %d repeats\n", median, opt.repeats);
    printf("final state: rms %.12g, max |u| %.12g, max error vs exact discrete solution %.3g (tol %.3g)\n",
           l2, max_abs, max_err, tol);
    printf("checksum %lld (sum of llround(u * 2^40)), %s\n", (long long)first_sum,
           passed ? "check passed" : "CHECK FAILED");
    printf("{\"app\":\"wave3d\",\"ranks\":%d,\"px\":%d,\"py\":%d,\"pz\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d,"
           "\"steps\":%d,\"repeats\":%d,\"dt\":%.17g,\"time_s\":%.9g,\"times_s\":[",
           size, dims[0], dims[1], dims[2], opt.nx, opt.ny, opt.nz, opt.steps, opt.repeats, dt, median);
    for (r = 0; r < opt.repeats; r++) printf("%s%.9g", r ? "," : "", times[r]);
    printf("],\"checksum\":\"%lld\",\"checksum_scale\":\"2^40\",\"rms\":%.17g,\"max_abs\":%.17g,"
           "\"max_err\":%.6g,\"tol\":%.6g,\"repeats_agree\":%s,"
           "\"halo_msgs_per_step\":%lld,\"halo_bytes_per_step\":%lld,"
           "\"max_rank_halo_msgs_per_step\":%lld,\"max_rank_halo_bytes_per_step\":%lld",
           (long long)first_sum, l2, max_abs, max_err, tol, repeats_agree ? "true" : "false", tot[0],
           tot[1], mx[0], mx[1]);
    /* The step loop split in two, each the slowest rank's, medians over the
     * repeats: calc (the loop minus its MPI calls: pack, unpack, update) and
     * the MPI calls of the halo exchange. */
    printf(",\"calc_s\":%.9g,\"mpi_s\":%.9g", median_of(calcs, opt.repeats), median_of(mpis, opt.repeats));
    print_array("calcs_s", calcs, opt.repeats);
    print_array("mpis_s", mpis, opt.repeats);
    printf(",\"check\":\"%s\"}\n", passed ? "passed" : "failed");
    fflush(stdout);
    bad = !passed;
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, cart);

  for (f = 0; f < 6; f++) {
    free(sbuf[f]);
    free(rbuf[f]);
  }
  free(u0);
  free(up0);
  free(ua);
  free(ub);
  free(uc);
  free(times);
  free(calcs);
  free(mpis);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return bad ? 1 : 0;
}

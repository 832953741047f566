/* fft3d — a distributed 3D complex FFT with a slab or a pencil decomposition
 * (see README.md): forward, then inverse, of an nx x ny x nz grid.
 *
 * Slabs (default): each rank owns nx/P x-planes ([x][y][z], z fastest).
 * Forward: a 2D FFT of each plane over (y, z); the transpose (MPI_Alltoall of
 * equal blocks of nx/P x ny/P x nz numbers) turns x-slabs into y-slabs stored
 * [y][z][x]; a 1D FFT along x.
 *
 * Pencils (--decomp pencil) on a pr x pc process grid: z-pencils of
 * nx/pr x ny/pc ([x][y][z]), 1D FFTs along z; an alltoall along the process
 * row (pc ranks) gives y-pencils ([x][z][y]), 1D FFTs along y; an alltoall
 * along the process column (pr ranks) gives x-pencils ([y][z][x]), 1D FFTs
 * along x. Both end with the spectrum stored [y][z][x].
 *
 * Inverse: the same steps backwards, then a scaling by 1/(nx ny nz). The
 * local FFTs are plain FFTW plans on each rank (not FFTW's MPI interface).
 *
 * The check: a plane wave exp(2 pi i (kx x/nx + ky y/ny + kz z/nz)) must map
 * to a single spike of height nx ny nz at (kx, ky, kz) (FFTW's forward sign is
 * -1), and the timed round trips of a random grid must restore it, both to
 * 1e-10 relative to the largest value. */
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft3d_options.h"

#define TOLERANCE 1e-10

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
  FftOptions o;
  FftSlabs s;
  int rank, size;
  /* input: [x][y][z], x from ax0 (anx of them), y from ay0 (any), every z;
   * spectrum: [y][z][x], y from cy0 (cny), z from cz0 (cnz), every x;
   * mid: the y-pencils [x][z][y] between the pencil transposes */
  int ax0, anx, ay0, any, cy0, cny, cz0, cnz;
  fftw_complex *slab, *pencil, *mid, *sendbuf, *recvbuf; /* slab: the input layout; pencil: the spectrum's */
  fftw_plan yz_forward, yz_backward, z_forward, z_backward, y_forward, y_backward, x_forward, x_backward;
  MPI_Comm rowcomm, colcomm; /* pencils: the process row (pc ranks) and column (pr ranks) */
} Fft;

/* Uniform in [-0.5, 0.5) from a hash of (i, part): any rank regenerates any point. */
static double hashed(uint64_t i, int part) {
  uint64_t z = i * 2 + (uint64_t)part + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

/* The same grid whatever the decomposition: a hash of the global index. */
static void random_input(const Fft *f, fftw_complex *out) {
  const FftOptions *o = &f->o;
  int xl, yl, z;
  for (xl = 0; xl < f->anx; xl++)
    for (yl = 0; yl < f->any; yl++)
      for (z = 0; z < o->nz; z++) {
        uint64_t g = ((uint64_t)(f->ax0 + xl) * o->ny + (uint64_t)(f->ay0 + yl)) * o->nz + z;
        out[((size_t)xl * f->any + yl) * o->nz + z] = hashed(g, 0) + I * hashed(g, 1);
      }
}

static void plane_wave(const Fft *f, int kx, int ky, int kz) {
  const FftOptions *o = &f->o;
  int xl, yl, z;
  for (xl = 0; xl < f->anx; xl++)
    for (yl = 0; yl < f->any; yl++)
      for (z = 0; z < o->nz; z++) {
        int x = f->ax0 + xl, y = f->ay0 + yl;
        /* the phase in turns, reduced exactly in integers before the sine */
        double turns = (double)((long long)kx * x % o->nx) / o->nx + (double)((long long)ky * y % o->ny) / o->ny +
                       (double)((long long)kz * z % o->nz) / o->nz;
        f->slab[((size_t)xl * f->any + yl) * o->nz + z] = cexp(2.0 * M_PI * I * turns);
      }
}

static void forward_slabs(Fft *f) {
  const FftOptions *o = &f->o;
  const int nxl = f->s.nxl, nyl = f->s.nyl, P = f->size;
  int q, xl, yy, z;
  fftw_execute(f->yz_forward);
  for (q = 0; q < P; q++) /* block q: x local, y of rank q, z */
    for (xl = 0; xl < nxl; xl++)
      for (yy = 0; yy < nyl; yy++)
        memcpy(f->sendbuf + q * f->s.block + ((size_t)xl * nyl + yy) * o->nz,
               f->slab + ((size_t)xl * o->ny + (size_t)q * nyl + yy) * o->nz, sizeof(fftw_complex) * o->nz);
  MPI_Alltoall(f->sendbuf, (int)(2 * f->s.block), MPI_DOUBLE, f->recvbuf, (int)(2 * f->s.block), MPI_DOUBLE,
               MPI_COMM_WORLD);
  for (q = 0; q < P; q++) /* from rank q: its x-planes, my y, z -> [y][z][x] */
    for (xl = 0; xl < nxl; xl++)
      for (yy = 0; yy < nyl; yy++) {
        const fftw_complex *src = f->recvbuf + q * f->s.block + ((size_t)xl * nyl + yy) * o->nz;
        fftw_complex *dst = f->pencil + (size_t)yy * o->nz * o->nx + (size_t)q * nxl + xl;
        for (z = 0; z < o->nz; z++) dst[(size_t)z * o->nx] = src[z];
      }
  fftw_execute(f->x_forward);
}

static void inverse_slabs(Fft *f) {
  const FftOptions *o = &f->o;
  const int nxl = f->s.nxl, nyl = f->s.nyl, P = f->size;
  const double scale = 1.0 / ((double)o->nx * o->ny * o->nz);
  int q, xl, yy, z;
  long long k;
  fftw_execute(f->x_backward);
  for (q = 0; q < P; q++) /* block q: my y, z, x of rank q, stored as the forward's blocks */
    for (xl = 0; xl < nxl; xl++)
      for (yy = 0; yy < nyl; yy++) {
        const fftw_complex *src = f->pencil + (size_t)yy * o->nz * o->nx + (size_t)q * nxl + xl;
        fftw_complex *dst = f->sendbuf + q * f->s.block + ((size_t)xl * nyl + yy) * o->nz;
        for (z = 0; z < o->nz; z++) dst[z] = src[(size_t)z * o->nx];
      }
  MPI_Alltoall(f->sendbuf, (int)(2 * f->s.block), MPI_DOUBLE, f->recvbuf, (int)(2 * f->s.block), MPI_DOUBLE,
               MPI_COMM_WORLD);
  for (q = 0; q < P; q++)
    for (xl = 0; xl < nxl; xl++)
      for (yy = 0; yy < nyl; yy++)
        memcpy(f->slab + ((size_t)xl * o->ny + (size_t)q * nyl + yy) * o->nz,
               f->recvbuf + q * f->s.block + ((size_t)xl * nyl + yy) * o->nz, sizeof(fftw_complex) * o->nz);
  fftw_execute(f->yz_backward);
  for (k = 0; k < f->s.local; k++) f->slab[k] *= scale;
}

/* Pencils, forward: z-pencils -> (row alltoall) y-pencils -> (column
 * alltoall) x-pencils. */
static void forward_pencils(Fft *f) {
  const FftOptions *o = &f->o;
  const FftSlabs *s = &f->s;
  int q, x, yy, zz;
  fftw_execute(f->z_forward);
  for (q = 0; q < s->pc; q++) /* to row rank q: my x and y, q's z */
    for (x = 0; x < s->nxa; x++)
      for (yy = 0; yy < s->nya; yy++)
        memcpy(f->sendbuf + q * s->row_block + ((size_t)x * s->nya + yy) * s->nza,
               f->slab + ((size_t)x * s->nya + yy) * o->nz + (size_t)q * s->nza, sizeof(fftw_complex) * s->nza);
  MPI_Alltoall(f->sendbuf, (int)(2 * s->row_block), MPI_DOUBLE, f->recvbuf, (int)(2 * s->row_block), MPI_DOUBLE,
               f->rowcomm);
  for (q = 0; q < s->pc; q++) /* from row rank q: its y -> [x][z][y] */
    for (x = 0; x < s->nxa; x++)
      for (yy = 0; yy < s->nya; yy++) {
        const fftw_complex *src = f->recvbuf + q * s->row_block + ((size_t)x * s->nya + yy) * s->nza;
        fftw_complex *dst = f->mid + (size_t)x * s->nza * o->ny + (size_t)q * s->nya + yy;
        for (zz = 0; zz < s->nza; zz++) dst[(size_t)zz * o->ny] = src[zz];
      }
  fftw_execute(f->y_forward);
  for (q = 0; q < s->pr; q++) /* to column rank q: my x and z, q's y */
    for (x = 0; x < s->nxa; x++)
      for (zz = 0; zz < s->nza; zz++)
        memcpy(f->sendbuf + q * s->col_block + ((size_t)x * s->nza + zz) * s->nyc,
               f->mid + ((size_t)x * s->nza + zz) * o->ny + (size_t)q * s->nyc, sizeof(fftw_complex) * s->nyc);
  MPI_Alltoall(f->sendbuf, (int)(2 * s->col_block), MPI_DOUBLE, f->recvbuf, (int)(2 * s->col_block), MPI_DOUBLE,
               f->colcomm);
  for (q = 0; q < s->pr; q++) /* from column rank q: its x -> [y][z][x] */
    for (x = 0; x < s->nxa; x++)
      for (zz = 0; zz < s->nza; zz++) {
        const fftw_complex *src = f->recvbuf + q * s->col_block + ((size_t)x * s->nza + zz) * s->nyc;
        fftw_complex *dst = f->pencil + (size_t)zz * o->nx + (size_t)q * s->nxa + x;
        for (yy = 0; yy < s->nyc; yy++) dst[(size_t)yy * s->nza * o->nx] = src[yy];
      }
  fftw_execute(f->x_forward);
}

static void inverse_pencils(Fft *f) {
  const FftOptions *o = &f->o;
  const FftSlabs *s = &f->s;
  const double scale = 1.0 / ((double)o->nx * o->ny * o->nz);
  int q, x, yy, zz;
  long long k;
  fftw_execute(f->x_backward);
  for (q = 0; q < s->pr; q++) /* to column rank q: q's x, my z and y, as the forward's blocks */
    for (x = 0; x < s->nxa; x++)
      for (zz = 0; zz < s->nza; zz++) {
        const fftw_complex *src = f->pencil + (size_t)zz * o->nx + (size_t)q * s->nxa + x;
        fftw_complex *dst = f->sendbuf + q * s->col_block + ((size_t)x * s->nza + zz) * s->nyc;
        for (yy = 0; yy < s->nyc; yy++) dst[yy] = src[(size_t)yy * s->nza * o->nx];
      }
  MPI_Alltoall(f->sendbuf, (int)(2 * s->col_block), MPI_DOUBLE, f->recvbuf, (int)(2 * s->col_block), MPI_DOUBLE,
               f->colcomm);
  for (q = 0; q < s->pr; q++)
    for (x = 0; x < s->nxa; x++)
      for (zz = 0; zz < s->nza; zz++)
        memcpy(f->mid + ((size_t)x * s->nza + zz) * o->ny + (size_t)q * s->nyc,
               f->recvbuf + q * s->col_block + ((size_t)x * s->nza + zz) * s->nyc, sizeof(fftw_complex) * s->nyc);
  fftw_execute(f->y_backward);
  for (q = 0; q < s->pc; q++) /* to row rank q: my x, q's y, my z */
    for (x = 0; x < s->nxa; x++)
      for (yy = 0; yy < s->nya; yy++) {
        const fftw_complex *src = f->mid + (size_t)x * s->nza * o->ny + (size_t)q * s->nya + yy;
        fftw_complex *dst = f->sendbuf + q * s->row_block + ((size_t)x * s->nya + yy) * s->nza;
        for (zz = 0; zz < s->nza; zz++) dst[zz] = src[(size_t)zz * o->ny];
      }
  MPI_Alltoall(f->sendbuf, (int)(2 * s->row_block), MPI_DOUBLE, f->recvbuf, (int)(2 * s->row_block), MPI_DOUBLE,
               f->rowcomm);
  for (q = 0; q < s->pc; q++)
    for (x = 0; x < s->nxa; x++)
      for (yy = 0; yy < s->nya; yy++)
        memcpy(f->slab + ((size_t)x * s->nya + yy) * o->nz + (size_t)q * s->nza,
               f->recvbuf + q * s->row_block + ((size_t)x * s->nya + yy) * s->nza, sizeof(fftw_complex) * s->nza);
  fftw_execute(f->z_backward);
  for (k = 0; k < s->local; k++) f->slab[k] *= scale;
}

static void forward(Fft *f) {
  if (f->o.decomp == DECOMP_PENCIL) forward_pencils(f);
  else forward_slabs(f);
}

static void inverse(Fft *f) {
  if (f->o.decomp == DECOMP_PENCIL) inverse_pencils(f);
  else inverse_slabs(f);
}

/* max |F - N delta(kx, ky, kz)| / N over this rank's part of the spectrum. */
static double spike_error(const Fft *f, int kx, int ky, int kz) {
  const FftOptions *o = &f->o;
  const double points = (double)o->nx * o->ny * o->nz;
  double err = 0.0;
  int yy, zz, x;
  for (yy = 0; yy < f->cny; yy++)
    for (zz = 0; zz < f->cnz; zz++)
      for (x = 0; x < o->nx; x++) {
        int y = f->cy0 + yy, z = f->cz0 + zz;
        double expected = (x == kx && y == ky && z == kz) ? points : 0.0;
        double e = cabs(f->pencil[((size_t)yy * f->cnz + zz) * o->nx + x] - expected) / points;
        if (e > err) err = e;
      }
  return err;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void usage(void) {
  printf("usage: fft3d [options]   3D complex FFT, slab or pencil decomposition, alltoall transposes, FFTW per rank\n"
         "  --n N                   grid N x N x N (default 64)\n"
         "  --nx N, --ny N, --nz N  size per dimension (override --n); slabs: nx and ny multiples of the ranks\n"
         "  --decomp D              slab (default) or pencil\n"
         "  --pr P, --pc Q          pencils: process grid, P*Q = ranks (default: the most square, P <= Q);\n"
         "                          nx, ny multiples of P; ny, nz multiples of Q\n"
         "  --repeats R             forward+inverse round trips timed; time_s is their median (default 3)\n"
         "  --help                  this text\n");
}

int main(int argc, char **argv) {
  Fft f;
  const int kx_wave = 1, ky_wave = 2, kz_wave = 3;
  int rc, rep, kx, ky, kz, passed;
  double *times, t_med = 0.0, errs[2], global[2], spike = 0.0, roundtrip, points, flops;
  fftw_complex *input;
  long long k;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &f.size);
  rc = fft3d_parse_args("fft3d", argc, argv, f.rank, &f.o);
  if (rc == 1) {
    if (f.rank == 0) usage();
    MPI_Finalize();
    return 0;
  }
  if (rc == 0) rc = fft3d_check_decomposition("fft3d", &f.o, f.size, f.rank, &f.s);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  if (f.o.decomp == DECOMP_PENCIL) {
    int prow = f.rank / f.s.pc, pcol = f.rank % f.s.pc;
    f.ax0 = prow * f.s.nxa;
    f.anx = f.s.nxa;
    f.ay0 = pcol * f.s.nya;
    f.any = f.s.nya;
    f.cy0 = prow * f.s.nyc;
    f.cny = f.s.nyc;
    f.cz0 = pcol * f.s.nza;
    f.cnz = f.s.nza;
    MPI_Comm_split(MPI_COMM_WORLD, prow, pcol, &f.rowcomm);
    MPI_Comm_split(MPI_COMM_WORLD, pcol, prow, &f.colcomm);
  } else {
    f.ax0 = f.rank * f.s.nxl;
    f.anx = f.s.nxl;
    f.ay0 = 0;
    f.any = f.o.ny;
    f.cy0 = f.rank * f.s.nyl;
    f.cny = f.s.nyl;
    f.cz0 = 0;
    f.cnz = f.o.nz;
  }
  f.slab = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.pencil = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.mid = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.sendbuf = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.recvbuf = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  input = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  times = malloc(sizeof(double) * (size_t)f.o.repeats);
  if (!f.slab || !f.pencil || !f.mid || !f.sendbuf || !f.recvbuf || !input || !times) {
    fprintf(stderr, "fft3d: rank %d: out of memory\n", f.rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  {
    /* FFTW_ESTIMATE: plans chosen without timing runs, the same every run */
    int yz[2] = {f.o.ny, f.o.nz}, x1[1] = {f.o.nx}, y1[1] = {f.o.ny}, z1[1] = {f.o.nz};
    int plane = f.o.ny * f.o.nz, lines = f.cny * f.cnz;
    f.yz_forward = f.yz_backward = f.z_forward = f.z_backward = f.y_forward = f.y_backward = NULL;
    if (f.o.decomp == DECOMP_PENCIL) {
      int zlines = f.anx * f.any, ylines = f.s.nxa * f.s.nza;
      f.z_forward = fftw_plan_many_dft(1, z1, zlines, f.slab, NULL, 1, f.o.nz, f.slab, NULL, 1, f.o.nz, FFTW_FORWARD,
                                       FFTW_ESTIMATE);
      f.z_backward = fftw_plan_many_dft(1, z1, zlines, f.slab, NULL, 1, f.o.nz, f.slab, NULL, 1, f.o.nz,
                                        FFTW_BACKWARD, FFTW_ESTIMATE);
      f.y_forward = fftw_plan_many_dft(1, y1, ylines, f.mid, NULL, 1, f.o.ny, f.mid, NULL, 1, f.o.ny, FFTW_FORWARD,
                                       FFTW_ESTIMATE);
      f.y_backward = fftw_plan_many_dft(1, y1, ylines, f.mid, NULL, 1, f.o.ny, f.mid, NULL, 1, f.o.ny, FFTW_BACKWARD,
                                        FFTW_ESTIMATE);
    } else {
      f.yz_forward = fftw_plan_many_dft(2, yz, f.s.nxl, f.slab, NULL, 1, plane, f.slab, NULL, 1, plane, FFTW_FORWARD,
                                        FFTW_ESTIMATE);
      f.yz_backward = fftw_plan_many_dft(2, yz, f.s.nxl, f.slab, NULL, 1, plane, f.slab, NULL, 1, plane,
                                         FFTW_BACKWARD, FFTW_ESTIMATE);
    }
    f.x_forward = fftw_plan_many_dft(1, x1, lines, f.pencil, NULL, 1, f.o.nx, f.pencil, NULL, 1, f.o.nx,
                                     FFTW_FORWARD, FFTW_ESTIMATE);
    f.x_backward = fftw_plan_many_dft(1, x1, lines, f.pencil, NULL, 1, f.o.nx, f.pencil, NULL, 1, f.o.nx,
                                      FFTW_BACKWARD, FFTW_ESTIMATE);
  }

  /* The analytic check (untimed): a plane wave is one spike. */
  kx = kx_wave % f.o.nx;
  ky = ky_wave % f.o.ny;
  kz = kz_wave % f.o.nz;
  plane_wave(&f, kx, ky, kz);
  forward(&f);
  errs[0] = spike_error(&f, kx, ky, kz);
  MPI_Allreduce(errs, &spike, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  random_input(&f, input);
  for (rep = 0; rep < f.o.repeats; rep++) {
    double t0, dt, dtmax;
    memcpy(f.slab, input, sizeof(fftw_complex) * (size_t)f.s.local);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* the timed region starts: apps/README.md */
    t0 = MPI_Wtime();
    forward(&f);
    inverse(&f);
    dt = MPI_Wtime() - t0;
    MPI_Pcontrol(0); /* and ends */
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times[rep] = dtmax;
    if (f.rank == 0) printf("fft3d: round trip %d: %.6f s\n", rep + 1, dtmax);
  }
  /* The round trip of the last repeat against the input: max error, max value. */
  errs[0] = errs[1] = 0.0;
  for (k = 0; k < f.s.local; k++) {
    double e = cabs(f.slab[k] - input[k]), v = cabs(input[k]);
    if (e > errs[0]) errs[0] = e;
    if (v > errs[1]) errs[1] = v;
  }
  MPI_Allreduce(errs, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  roundtrip = global[0] / global[1];
  passed = spike < TOLERANCE && roundtrip < TOLERANCE;

  points = (double)f.o.nx * f.o.ny * f.o.nz;
  flops = 2.0 * fft3d_flops(points);
  if (f.rank == 0) {
    double *sorted = malloc(sizeof(double) * (size_t)f.o.repeats);
    memcpy(sorted, times, sizeof(double) * (size_t)f.o.repeats);
    qsort(sorted, (size_t)f.o.repeats, sizeof(double), cmp_double);
    t_med = (f.o.repeats % 2) ? sorted[f.o.repeats / 2]
                              : 0.5 * (sorted[f.o.repeats / 2 - 1] + sorted[f.o.repeats / 2]);
    printf("fft3d: %d x %d x %d on %d ranks (%s): round trip median %.6f s, %.3f Gflop/s; plane-wave error %.3g, "
           "round-trip error %.3g (%s)\n",
           f.o.nx, f.o.ny, f.o.nz, f.size, f.o.decomp == DECOMP_PENCIL ? "pencils" : "slabs", t_med,
           flops / t_med * 1e-9, spike, roundtrip, passed ? "passed" : "failed");
    printf("{\"app\":\"fft3d\",\"ranks\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d", f.size, f.o.nx, f.o.ny, f.o.nz);
    if (f.o.decomp == DECOMP_PENCIL)
      printf(",\"decomposition\":\"pencils\",\"pr\":%d,\"pc\":%d,\"alltoalls_per_round_trip\":4"
             ",\"row_alltoall_bytes_per_peer\":%lld,\"column_alltoall_bytes_per_peer\":%lld",
             f.s.pr, f.s.pc, 16 * f.s.row_block, 16 * f.s.col_block);
    else
      printf(",\"decomposition\":\"slabs\",\"planes_per_rank\":%d,\"alltoalls_per_round_trip\":2"
             ",\"alltoall_bytes_per_peer\":%lld", f.s.nxl, 16 * f.s.block);
    printf(",\"flops_per_round_trip\":%.17g,\"gflops\":%.9g,\"plane_wave\":[%d,%d,%d],\"plane_wave_error\":%.9g", flops,
           flops / t_med * 1e-9, kx, ky, kz, spike);
    printf(",\"roundtrip_error\":%.9g,\"tolerance\":%g,\"repeats\":%d,\"time_s\":%.9g,\"times_s\":[", roundtrip,
           TOLERANCE, f.o.repeats, t_med);
    for (rep = 0; rep < f.o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"%s\"}\n", passed ? "passed" : "failed");
    fflush(stdout);
    free(sorted);
  }
  {
    fftw_plan plans[8] = {f.yz_forward, f.yz_backward, f.z_forward, f.z_backward,
                          f.y_forward,  f.y_backward,  f.x_forward, f.x_backward};
    int p;
    for (p = 0; p < 8; p++)
      if (plans[p] != NULL) fftw_destroy_plan(plans[p]);
  }
  if (f.o.decomp == DECOMP_PENCIL) {
    MPI_Comm_free(&f.rowcomm);
    MPI_Comm_free(&f.colcomm);
  }
  fftw_free(f.slab);
  fftw_free(f.pencil);
  fftw_free(f.mid);
  fftw_free(f.sendbuf);
  fftw_free(f.recvbuf);
  fftw_free(input);
  free(times);
  fftw_cleanup();
  MPI_Finalize();
  return passed ? 0 : 1;
}

/* fft3d — a distributed 3D complex FFT with a slab decomposition (see
 * README.md): forward, then inverse, of an nx x ny x nz grid.
 *
 * Each rank owns nx/P x-planes ([x][y][z], z fastest). Forward: a 2D FFT of
 * each plane over (y, z); the transpose (MPI_Alltoall of equal blocks of
 * nx/P x ny/P x nz numbers) turns x-slabs into y-slabs stored [y][z][x]; a 1D
 * FFT along x. Inverse: the same steps backwards, then a scaling by
 * 1/(nx ny nz). The local FFTs are plain FFTW plans on each rank (not FFTW's
 * MPI interface).
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
  fftw_complex *slab, *pencil, *sendbuf, *recvbuf; /* slab: [x][y][z]; pencil: [y][z][x] */
  fftw_plan yz_forward, yz_backward, x_forward, x_backward;
} Fft;

/* Uniform in [-0.5, 0.5) from a hash of (i, part): any rank regenerates any point. */
static double hashed(uint64_t i, int part) {
  uint64_t z = i * 2 + (uint64_t)part + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static void random_input(const Fft *f, fftw_complex *out) {
  long long k;
  uint64_t first = (uint64_t)f->rank * (uint64_t)f->s.local;
  for (k = 0; k < f->s.local; k++) out[k] = hashed(first + (uint64_t)k, 0) + I * hashed(first + (uint64_t)k, 1);
}

static void plane_wave(const Fft *f, int kx, int ky, int kz) {
  const FftOptions *o = &f->o;
  int xl, y, z;
  for (xl = 0; xl < f->s.nxl; xl++)
    for (y = 0; y < o->ny; y++)
      for (z = 0; z < o->nz; z++) {
        int x = f->rank * f->s.nxl + xl;
        /* the phase in turns, reduced exactly in integers before the sine */
        double turns = (double)((long long)kx * x % o->nx) / o->nx + (double)((long long)ky * y % o->ny) / o->ny +
                       (double)((long long)kz * z % o->nz) / o->nz;
        f->slab[((size_t)xl * o->ny + y) * o->nz + z] = cexp(2.0 * M_PI * I * turns);
      }
}

static void forward(Fft *f) {
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

static void inverse(Fft *f) {
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

/* max |F - N delta(kx, ky, kz)| / N over this rank's part of the spectrum. */
static double spike_error(const Fft *f, int kx, int ky, int kz) {
  const FftOptions *o = &f->o;
  const double points = (double)o->nx * o->ny * o->nz;
  double err = 0.0;
  int yy, z, x;
  for (yy = 0; yy < f->s.nyl; yy++)
    for (z = 0; z < o->nz; z++)
      for (x = 0; x < o->nx; x++) {
        int y = f->rank * f->s.nyl + yy;
        double expected = (x == kx && y == ky && z == kz) ? points : 0.0;
        double e = cabs(f->pencil[((size_t)yy * o->nz + z) * o->nx + x] - expected) / points;
        if (e > err) err = e;
      }
  return err;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void usage(void) {
  printf("usage: fft3d [options]   3D complex FFT, slab decomposition, alltoall transposes, FFTW per rank\n"
         "  --n N                   grid N x N x N (default 64)\n"
         "  --nx N, --ny N, --nz N  size per dimension (override --n); nx and ny multiples of the ranks\n"
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
  f.slab = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.pencil = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.sendbuf = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  f.recvbuf = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  input = fftw_malloc(sizeof(fftw_complex) * (size_t)f.s.local);
  times = malloc(sizeof(double) * (size_t)f.o.repeats);
  if (!f.slab || !f.pencil || !f.sendbuf || !f.recvbuf || !input || !times) {
    fprintf(stderr, "fft3d: rank %d: out of memory\n", f.rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  {
    /* FFTW_ESTIMATE: plans chosen without timing runs, the same every run */
    int yz[2] = {f.o.ny, f.o.nz}, x1[1] = {f.o.nx}, plane = f.o.ny * f.o.nz, lines = f.s.nyl * f.o.nz;
    f.yz_forward = fftw_plan_many_dft(2, yz, f.s.nxl, f.slab, NULL, 1, plane, f.slab, NULL, 1, plane, FFTW_FORWARD,
                                      FFTW_ESTIMATE);
    f.yz_backward = fftw_plan_many_dft(2, yz, f.s.nxl, f.slab, NULL, 1, plane, f.slab, NULL, 1, plane,
                                       FFTW_BACKWARD, FFTW_ESTIMATE);
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
    t0 = MPI_Wtime();
    forward(&f);
    inverse(&f);
    dt = MPI_Wtime() - t0;
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
    printf("fft3d: %d x %d x %d on %d ranks (slabs): round trip median %.6f s, %.3f Gflop/s; plane-wave error %.3g, "
           "round-trip error %.3g (%s)\n",
           f.o.nx, f.o.ny, f.o.nz, f.size, t_med, flops / t_med * 1e-9, spike, roundtrip, passed ? "passed" : "failed");
    printf("{\"app\":\"fft3d\",\"ranks\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d,\"decomposition\":\"slabs\"", f.size, f.o.nx,
           f.o.ny, f.o.nz);
    printf(",\"planes_per_rank\":%d,\"alltoalls_per_round_trip\":2,\"alltoall_bytes_per_peer\":%lld", f.s.nxl,
           16 * f.s.block);
    printf(",\"flops_per_round_trip\":%.17g,\"gflops\":%.9g,\"plane_wave\":[%d,%d,%d],\"plane_wave_error\":%.9g", flops,
           flops / t_med * 1e-9, kx, ky, kz, spike);
    printf(",\"roundtrip_error\":%.9g,\"tolerance\":%g,\"repeats\":%d,\"time_s\":%.9g,\"times_s\":[", roundtrip,
           TOLERANCE, f.o.repeats, t_med);
    for (rep = 0; rep < f.o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"%s\"}\n", passed ? "passed" : "failed");
    fflush(stdout);
    free(sorted);
  }
  fftw_destroy_plan(f.yz_forward);
  fftw_destroy_plan(f.yz_backward);
  fftw_destroy_plan(f.x_forward);
  fftw_destroy_plan(f.x_backward);
  fftw_free(f.slab);
  fftw_free(f.pencil);
  fftw_free(f.sendbuf);
  fftw_free(f.recvbuf);
  fftw_free(input);
  free(times);
  fftw_cleanup();
  MPI_Finalize();
  return passed ? 0 : 1;
}

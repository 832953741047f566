/* fft3d_skel — the BSIM skeleton of apps/fft3d/fft3d.c (Susukita et al., SC2008).
 *
 * Same options, same slab or pencil decomposition, and the same MPI calls in
 * the same order with the same sizes as fft3d for the same arguments: with
 * pencils the two MPI_Comm_split of the process grid; the plane-wave
 * transform and the allreduce of its error; per round trip the barrier, the
 * transposes (slabs: two alltoalls of 16 nx ny nz / P^2 bytes to every rank;
 * pencils: four, two along the process row and two along the column) and the
 * MPI_MAX allreduce of its time; the allreduce of the round-trip error.
 *
 * Compute is BSIM_Add_flops/BSIM_Add_bytes: the FFTs at 5 N log2 N flops per
 * transform of N points, each streaming its data twice; the packing and
 * unpacking of the transposes 32 bytes per point each (read and write).
 *
 * Calls whose values are printed stay real MPI_* (the slowest-rank time of
 * each round trip); everything else is LMPI_* with NULL buffers. Rank 0
 * prints one JSON object ("check":"skeleton"); every rank its "skel_bytes".
 *
 * Build: perfcast cc -O2 -I apps/include apps/fft3d/skeleton/fft3d_skel.c -o fft3d_skel
 * Run:   perfcast simulate --machine machines/generic-cluster.toml --np 64 -- ./fft3d_skel --n 256
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */
#include <bsim.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fft3d_options.h"
#include "skel_tally.h"

typedef struct {
  FftOptions o;
  FftSlabs s;
  int size;
  MPI_Comm rowcomm, colcomm; /* pencils */
} Fft;

/* FFTs of `count` lines of `length` points. */
static void ffts(double count, double length) {
  BSIM_Add_flops(count * fft3d_flops(length));
  BSIM_Add_bytes(2.0 * 16.0 * count * length);
}

static void transpose(const Fft *f, SkelTally *t) {
  BSIM_Add_bytes(32.0 * (double)f->s.local); /* pack */
  LMPI_Alltoall(NULL, (int)(2 * f->s.block), MPI_DOUBLE, NULL, (int)(2 * f->s.block), MPI_DOUBLE, MPI_COMM_WORLD);
  tally_add(t, TALLY_ALLTOALL, 16LL * f->s.block * f->size);
  BSIM_Add_bytes(32.0 * (double)f->s.local); /* unpack */
}

/* A pencil transpose: `block` numbers to each of the `peers` ranks of comm. */
static void pencil_transpose(const Fft *f, long long block, int peers, MPI_Comm comm, SkelTally *t) {
  BSIM_Add_bytes(32.0 * (double)f->s.local);
  LMPI_Alltoall(NULL, (int)(2 * block), MPI_DOUBLE, NULL, (int)(2 * block), MPI_DOUBLE, comm);
  tally_add(t, TALLY_ALLTOALL, 16LL * block * peers);
  BSIM_Add_bytes(32.0 * (double)f->s.local);
}

static void forward(const Fft *f, SkelTally *t) {
  const FftSlabs *s = &f->s;
  if (f->o.decomp == DECOMP_PENCIL) {
    ffts((double)s->nxa * s->nya, f->o.nz);
    pencil_transpose(f, s->row_block, s->pc, f->rowcomm, t);
    ffts((double)s->nxa * s->nza, f->o.ny);
    pencil_transpose(f, s->col_block, s->pr, f->colcomm, t);
    ffts((double)s->nyc * s->nza, f->o.nx);
    return;
  }
  ffts(s->nxl, (double)f->o.ny * f->o.nz);
  transpose(f, t);
  ffts((double)s->nyl * f->o.nz, f->o.nx);
}

static void inverse(const Fft *f, SkelTally *t) {
  const FftSlabs *s = &f->s;
  if (f->o.decomp == DECOMP_PENCIL) {
    ffts((double)s->nyc * s->nza, f->o.nx);
    pencil_transpose(f, s->col_block, s->pr, f->colcomm, t);
    ffts((double)s->nxa * s->nza, f->o.ny);
    pencil_transpose(f, s->row_block, s->pc, f->rowcomm, t);
    ffts((double)s->nxa * s->nya, f->o.nz);
  } else {
    ffts((double)s->nyl * f->o.nz, f->o.nx);
    transpose(f, t);
    ffts(s->nxl, (double)f->o.ny * f->o.nz);
  }
  BSIM_Add_flops(2.0 * (double)s->local); /* the 1/N scaling */
  BSIM_Add_bytes(32.0 * (double)s->local);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Fft f;
  SkelTally tally;
  int rank, rc, rep;
  double *times, points;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &f.size);
  memset(&tally, 0, sizeof tally);
  rc = fft3d_parse_args("fft3d_skel", argc, argv, rank, &f.o);
  if (rc == 1) {
    if (rank == 0) printf("usage: fft3d_skel [options]   the BSIM skeleton of fft3d: fft3d's options (see fft3d --help)\n");
    MPI_Finalize();
    return 0;
  }
  if (rc == 0) rc = fft3d_check_decomposition("fft3d_skel", &f.o, f.size, rank, &f.s);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  times = malloc(sizeof(double) * (size_t)f.o.repeats);
  if (times == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  if (f.o.decomp == DECOMP_PENCIL) {
    MPI_Comm_split(MPI_COMM_WORLD, rank / f.s.pc, rank % f.s.pc, &f.rowcomm);
    MPI_Comm_split(MPI_COMM_WORLD, rank % f.s.pc, rank / f.s.pc, &f.colcomm);
  }

  /* the plane wave (a complex exponential per point), its transform and error */
  BSIM_Add_flops(40.0 * (double)f.s.local);
  BSIM_Add_bytes(16.0 * (double)f.s.local);
  forward(&f, &tally);
  BSIM_Add_flops(4.0 * (double)f.s.local);
  BSIM_Add_bytes(16.0 * (double)f.s.local);
  LMPI_Allreduce(NULL, NULL, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  tally_add(&tally, TALLY_ALLREDUCE, 8);

  BSIM_Add_flops(30.0 * (double)f.s.local); /* the random input */
  for (rep = 0; rep < f.o.repeats; rep++) {
    double t0, dt, dtmax;
    BSIM_Add_bytes(32.0 * (double)f.s.local); /* input copied in */
    LMPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
    t0 = MPI_Wtime();
    forward(&f, &tally);
    inverse(&f, &tally);
    dt = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* printed by rank 0: real */
    tally_add(&tally, TALLY_ALLREDUCE, 8);
    times[rep] = dtmax;
  }
  BSIM_Add_flops(8.0 * (double)f.s.local);
  BSIM_Add_bytes(32.0 * (double)f.s.local);
  LMPI_Allreduce(NULL, NULL, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  tally_add(&tally, TALLY_ALLREDUCE, 16);

  points = (double)f.o.nx * f.o.ny * f.o.nz;
  if (rank == 0) {
    double *sorted = malloc(sizeof(double) * (size_t)f.o.repeats), t_med, flops = 2.0 * fft3d_flops(points);
    memcpy(sorted, times, sizeof(double) * (size_t)f.o.repeats);
    qsort(sorted, (size_t)f.o.repeats, sizeof(double), cmp_double);
    t_med = (f.o.repeats % 2) ? sorted[f.o.repeats / 2]
                              : 0.5 * (sorted[f.o.repeats / 2 - 1] + sorted[f.o.repeats / 2]);
    printf("fft3d_skel: %d x %d x %d on %d ranks (%s): simulated round trip %.6g s\n", f.o.nx, f.o.ny, f.o.nz,
           f.size, f.o.decomp == DECOMP_PENCIL ? "pencils" : "slabs", t_med);
    printf("{\"app\":\"fft3d_skel\",\"ranks\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d", f.size, f.o.nx, f.o.ny, f.o.nz);
    if (f.o.decomp == DECOMP_PENCIL)
      printf(",\"decomposition\":\"pencils\",\"pr\":%d,\"pc\":%d,\"alltoalls_per_round_trip\":4"
             ",\"row_alltoall_bytes_per_peer\":%lld,\"column_alltoall_bytes_per_peer\":%lld",
             f.s.pr, f.s.pc, 16 * f.s.row_block, 16 * f.s.col_block);
    else
      printf(",\"decomposition\":\"slabs\",\"planes_per_rank\":%d,\"alltoalls_per_round_trip\":2"
             ",\"alltoall_bytes_per_peer\":%lld", f.s.nxl, 16 * f.s.block);
    printf(",\"flops_per_round_trip\":%.17g,\"repeats\":%d,\"time_s\":%.9g,\"times_s\":[", flops, f.o.repeats, t_med);
    for (rep = 0; rep < f.o.repeats; rep++) printf("%s%.9g", rep ? "," : "", times[rep]);
    printf("],\"check\":\"skeleton\"}\n");
    fflush(stdout);
    free(sorted);
  }
  tally_print(&tally, rank);
  free(times);
  if (f.o.decomp == DECOMP_PENCIL) {
    MPI_Comm_free(&f.rowcomm);
    MPI_Comm_free(&f.colcomm);
  }
  MPI_Finalize();
  return 0;
}

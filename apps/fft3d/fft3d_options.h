/* fft3d_options.h — what fft3d.c and its BSIM skeleton (skeleton/fft3d_skel.c)
 * share, so that the two cannot drift apart: the options (names, ranges,
 * defaults, error messages), the check of the grid against the ranks and the
 * sizes of the slab and pencil decompositions.
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("fft3d" or "fft3d_skel"). No writable
 * globals: the skeleton's ranks share one process. */
#ifndef FFT3D_OPTIONS_H
#define FFT3D_OPTIONS_H 1

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DECOMP_SLAB = 0, DECOMP_PENCIL = 1 };

typedef struct {
  int nx, ny, nz;
  int decomp;
  int pr, pc; /* pencils: process grid pr x pc (0: chosen) */
  int repeats;
} FftOptions;

/* The sizes of a decomposition on `ranks` ranks; local = points per rank.
 * Slabs: nxl x-planes per rank before the transpose, nyl y-planes after it;
 * block = the complex numbers each rank sends each rank in one transpose.
 * Pencils on pr x pc (rank = row pr_index * pc + column): z-pencils of
 * nx/pr x ny/pc, then y-pencils of nx/pr x nz/pc after the transpose along the
 * process row (row_block numbers to each of its pc ranks), then x-pencils of
 * ny/pr x nz/pc after the one along the process column (col_block to each of
 * its pr ranks). */
typedef struct {
  int nxl, nyl;
  long long block, local;
  int pr, pc, nxa, nya, nza, nyc;
  long long row_block, col_block;
} FftSlabs;

static inline int fft3d_parse_int(const char *prog, int rank, const char *opt, const char *s, int lo, int hi,
                                  int *out) {
  char *end = NULL;
  long v;
  if (s == NULL) {
    if (rank == 0) fprintf(stderr, "%s: option %s needs a value\n", prog, opt);
    return 2;
  }
  v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) {
    if (rank == 0)
      fprintf(stderr, "%s: bad value '%s' for option %s (expected an integer in [%d, %d])\n", prog, s, opt, lo, hi);
    return 2;
  }
  *out = (int)v;
  return 0;
}

/* Returns 0 to run, 1 for --help, 2 for a bad argument (message printed). */
static inline int fft3d_parse_args(const char *prog, int argc, char **argv, int rank, FftOptions *o) {
  int i, rc = 0, n = 64, nx = 0, ny = 0, nz = 0;
  o->repeats = 3;
  o->decomp = DECOMP_SLAB;
  o->pr = o->pc = 0;
  for (i = 1; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return 1;
    if (strcmp(a, "--n") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &n), i++;
    else if (strcmp(a, "--nx") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &nx), i++;
    else if (strcmp(a, "--ny") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &ny), i++;
    else if (strcmp(a, "--nz") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &nz), i++;
    else if (strcmp(a, "--repeats") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 1000, &o->repeats), i++;
    else if (strcmp(a, "--pr") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &o->pr), i++;
    else if (strcmp(a, "--pc") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &o->pc), i++;
    else if (strcmp(a, "--decomp") == 0) {
      if (v != NULL && strcmp(v, "slab") == 0) o->decomp = DECOMP_SLAB;
      else if (v != NULL && strcmp(v, "pencil") == 0) o->decomp = DECOMP_PENCIL;
      else {
        if (rank == 0) fprintf(stderr, "%s: bad value '%s' for option --decomp (expected slab or pencil)\n", prog, v ? v : "");
        rc = 2;
      }
      i++;
    }
    else {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
      rc = 2;
    }
  }
  if (rc) return rc;
  if (o->decomp == DECOMP_SLAB && (o->pr || o->pc)) {
    if (rank == 0) fprintf(stderr, "%s: --pr and --pc set the grid of --decomp pencil\n", prog);
    return 2;
  }
  o->nx = nx ? nx : n;
  o->ny = ny ? ny : n;
  o->nz = nz ? nz : n;
  /* a transpose's count is an int of doubles: 2 nx ny nz < 2^31 */
  if ((long long)o->nx * o->ny * o->nz > (1LL << 26)) {
    if (rank == 0)
      fprintf(stderr, "%s: grid %d x %d x %d too large (options --n/--nx/--ny/--nz; at most 2^26 points)\n", prog,
              o->nx, o->ny, o->nz);
    return 2;
  }
  return 0;
}

/* Pencils: the process grid (both given must multiply to the ranks, one fixes
 * the other, none gives the most square with pr <= pc) and whether the grid
 * splits into equal pencils on it; 0 if so, 2 with a message if not. */
static inline int fft3d_check_pencils(const char *prog, const FftOptions *o, int ranks, int rank, FftSlabs *s) {
  int pr = o->pr, pc = o->pc;
  if (pr == 0 && pc == 0) {
    int p;
    for (p = 1; p * p <= ranks; p++)
      if (ranks % p == 0) pr = p;
    pc = ranks / pr;
  } else if (pc == 0) {
    pc = ranks % pr == 0 ? ranks / pr : 0;
  } else if (pr == 0) {
    pr = ranks % pc == 0 ? ranks / pc : 0;
  }
  if (pr == 0 || pc == 0 || (long long)pr * pc != ranks) {
    if (rank == 0) fprintf(stderr, "%s: process grid --pr %d x --pc %d is not the %d ranks\n", prog, o->pr, o->pc, ranks);
    return 2;
  }
  if (o->nx % pr != 0 || o->ny % pr != 0 || o->ny % pc != 0 || o->nz % pc != 0) {
    if (rank == 0)
      fprintf(stderr, "%s: pencils on %d x %d ranks need --nx (%d) and --ny (%d) multiples of %d, --ny and --nz (%d) "
              "multiples of %d\n", prog, pr, pc, o->nx, o->ny, pr, o->nz, pc);
    return 2;
  }
  s->pr = pr;
  s->pc = pc;
  s->nxa = o->nx / pr;
  s->nya = o->ny / pc;
  s->nza = o->nz / pc;
  s->nyc = o->ny / pr;
  s->row_block = (long long)s->nxa * s->nya * s->nza;
  s->col_block = (long long)s->nxa * s->nza * s->nyc;
  s->local = (long long)s->nxa * s->nya * o->nz;
  return 0;
}

/* Whether the grid splits into equal slabs (or pencils) over `ranks`; 0 if so,
 * 2 with a message if not. */
static inline int fft3d_check_decomposition(const char *prog, const FftOptions *o, int ranks, int rank,
                                            FftSlabs *s) {
  memset(s, 0, sizeof *s);
  if (o->decomp == DECOMP_PENCIL) return fft3d_check_pencils(prog, o, ranks, rank, s);
  if (o->nx % ranks != 0 || o->ny % ranks != 0) {
    if (rank == 0)
      fprintf(stderr, "%s: --nx (%d) and --ny (%d) must be multiples of the number of ranks (%d): x-slabs become "
              "y-slabs in equal blocks\n", prog, o->nx, o->ny, ranks);
    return 2;
  }
  s->nxl = o->nx / ranks;
  s->nyl = o->ny / ranks;
  s->block = (long long)s->nxl * s->nyl * o->nz;
  s->local = (long long)s->nxl * o->ny * o->nz;
  return 0;
}

/* The usual operation count of a complex FFT of `points` points: 5 N log2 N. */
static inline double fft3d_flops(double points) { return points > 1.0 ? 5.0 * points * log2(points) : 0.0; }

#endif /* FFT3D_OPTIONS_H */

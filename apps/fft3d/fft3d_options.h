/* fft3d_options.h — what fft3d.c and its BSIM skeleton (skeleton/fft3d_skel.c)
 * share, so that the two cannot drift apart: the options (names, ranges,
 * defaults, error messages), the check of the grid against the ranks and the
 * sizes of the slab decomposition.
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

typedef struct {
  int nx, ny, nz;
  int repeats;
} FftOptions;

/* The slab decomposition on `ranks` ranks: nxl x-planes per rank before the
 * transpose, nyl y-planes after it; block = the complex numbers each rank
 * sends each rank in one transpose. */
typedef struct {
  int nxl, nyl;
  long long block, local;
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
  for (i = 1; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return 1;
    if (strcmp(a, "--n") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &n), i++;
    else if (strcmp(a, "--nx") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &nx), i++;
    else if (strcmp(a, "--ny") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &ny), i++;
    else if (strcmp(a, "--nz") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 4096, &nz), i++;
    else if (strcmp(a, "--repeats") == 0) rc = fft3d_parse_int(prog, rank, a, v, 1, 1000, &o->repeats), i++;
    else {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
      rc = 2;
    }
  }
  if (rc) return rc;
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

/* Whether the grid splits into equal slabs over `ranks`; 0 if so, 2 with a
 * message if not. */
static inline int fft3d_check_decomposition(const char *prog, const FftOptions *o, int ranks, int rank,
                                            FftSlabs *s) {
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

/* wave3d_options.h — what wave3d.c and its BSIM skeleton
 * (skeleton/wave3d_skel.c) share, so that the two cannot drift apart: the
 * options (names, ranges, defaults, error messages), the checks of the process
 * grid against the ranks and the grid, and the block decomposition.
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("wave3d" or "wave3d_skel"). No writable
 * globals: the skeleton's ranks share one process. */
#ifndef WAVE3D_OPTIONS_H
#define WAVE3D_OPTIONS_H 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wave3d_options {
  int nx, ny, nz;
  int px, py, pz;
  int steps;
  int repeats;
  int help;
};

/* Parses a positive int option value; returns 0 on success. */
static inline int wave3d_parse_int(const char *prog, const char *opt, const char *s, int minval, int maxval, int *out,
                                   int rank) {
  char *end = NULL;
  long v;
  if (s == NULL) {
    if (rank == 0) fprintf(stderr, "%s: option %s needs a value\n", prog, opt);
    return 1;
  }
  v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < minval || v > maxval) {
    if (rank == 0)
      fprintf(stderr, "%s: bad value '%s' for option %s (expected an integer in [%d, %d])\n", prog, s, opt, minval,
              maxval);
    return 1;
  }
  *out = (int)v;
  return 0;
}

/* Returns 0 on success, 1 on a bad argument (message printed by rank 0).
 * --help sets o->help and parsing goes on. */
static inline int wave3d_parse_args(const char *prog, int argc, char **argv, struct wave3d_options *o, int rank) {
  int n = 64, nx = 0, ny = 0, nz = 0;
  int i;
  o->px = o->py = o->pz = 0;
  o->steps = 20;
  o->repeats = 3;
  o->help = 0;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    int *dst = NULL;
    int lo = 1, hi = 1 << 20;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = 1;
      continue;
    }
    if (strcmp(a, "--n") == 0) dst = &n;
    else if (strcmp(a, "--nx") == 0) dst = &nx;
    else if (strcmp(a, "--ny") == 0) dst = &ny;
    else if (strcmp(a, "--nz") == 0) dst = &nz;
    else if (strcmp(a, "--px") == 0) dst = &o->px;
    else if (strcmp(a, "--py") == 0) dst = &o->py;
    else if (strcmp(a, "--pz") == 0) dst = &o->pz;
    else if (strcmp(a, "--steps") == 0) { dst = &o->steps; lo = 0; hi = 100000000; }
    else if (strcmp(a, "--repeats") == 0) { dst = &o->repeats; hi = 1000; }
    else {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
      return 1;
    }
    if (wave3d_parse_int(prog, a, v, lo, hi, dst, rank)) return 1;
    i++;
  }
  o->nx = nx ? nx : n;
  o->ny = ny ? ny : n;
  o->nz = nz ? nz : n;
  return 0;
}

/* Whether the processes fixed by --px/--py/--pz (0 = free) can make a grid of
 * `ranks` processes; returns 0 if they can, 1 if not (message printed). */
static inline int wave3d_check_fixed_dims(const char *prog, const struct wave3d_options *o, int ranks, int rank) {
  const int p[3] = {o->px, o->py, o->pz};
  int fixed = 1, nfree = 0, m, bad;
  for (m = 0; m < 3; m++) {
    if (p[m] > 0) fixed *= p[m];
    else nfree++;
  }
  bad = (nfree == 0) ? (fixed != ranks) : (ranks % fixed != 0);
  if (bad && rank == 0)
    fprintf(stderr,
            "%s: process grid --px %d --py %d --pz %d does not fit %d ranks "
            "(the product must equal the number of ranks; 0 = chosen automatically)\n",
            prog, o->px, o->py, o->pz, ranks);
  return bad;
}

/* Whether the process grid `dims` (from MPI_Dims_create) leaves every block at
 * least one grid point; returns 0 if it does, 1 if not (message printed). */
static inline int wave3d_check_dims(const char *prog, const int dims[3], const struct wave3d_options *o, int rank) {
  const int n[3] = {o->nx, o->ny, o->nz};
  const char *pn[3] = {"--px", "--py", "--pz"};
  int m;
  for (m = 0; m < 3; m++)
    if (dims[m] > n[m]) {
      if (rank == 0)
        fprintf(stderr,
                "%s: %d processes along axis %c (%s) but only %d grid points there; "
                "every block needs at least one point\n",
                prog, dims[m], "xyz"[m], pn[m], n[m]);
      return 1;
    }
  return 0;
}

/* Block decomposition of n points over p parts: the first n % p parts get one
 * more point. */
static inline void wave3d_block(int n, int p, int c, int *start, int *len) {
  int base = n / p, rem = n % p;
  *len = base + (c < rem ? 1 : 0);
  *start = c * base + (c < rem ? c : rem);
}

#endif /* WAVE3D_OPTIONS_H */

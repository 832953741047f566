/* cg_options.h — what cg.c and its BSIM skeleton (skeleton/cg_skel.c) share,
 * so that the two cannot drift apart: the options (names, ranges, defaults,
 * error messages), the checks of the grid against the ranks, and the z-slab
 * decomposition.
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("cg" or "cg_skel"). No writable globals:
 * the skeleton's ranks share one process. */
#ifndef CG_OPTIONS_H
#define CG_OPTIONS_H 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRECOND_NONE 0
#define PRECOND_JACOBI 1
#define DOT_ORDERED 0
#define DOT_PLAIN 1

typedef struct {
  int nx, ny, nz;
  double tol;
  int max_iters;
  int iters;           /* > 0: fixed count, tol ignored */
  int converged_iters; /* > 0: the count a real run to --tol took (skeleton only) */
  int precond;
  int dot;
  int repeats;
} Options;

static inline int cg_parse_int(const char *prog, int rank, const char *opt, const char *s, int lo, int hi, int *out) {
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

static inline int cg_parse_double(const char *prog, int rank, const char *opt, const char *s, double lo, double hi,
                                  double *out) {
  char *end = NULL;
  double v;
  if (s == NULL) {
    if (rank == 0) fprintf(stderr, "%s: option %s needs a value\n", prog, opt);
    return 2;
  }
  v = strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= lo && v <= hi)) {
    if (rank == 0)
      fprintf(stderr, "%s: bad value '%s' for option %s (expected a number in [%g, %g])\n", prog, s, opt, lo, hi);
    return 2;
  }
  *out = v;
  return 0;
}

/* A choice of two words stored as 0 (`first`) or 1 (`second`). */
static inline int cg_parse_choice(const char *prog, int rank, const char *opt, const char *s, const char *first,
                                  const char *second, int *out) {
  if (s == NULL) {
    if (rank == 0) fprintf(stderr, "%s: option %s needs a value\n", prog, opt);
    return 2;
  }
  if (strcmp(s, first) == 0) *out = 0;
  else if (strcmp(s, second) == 0) *out = 1;
  else {
    if (rank == 0) fprintf(stderr, "%s: bad value '%s' for option %s (expected %s or %s)\n", prog, s, opt, first, second);
    return 2;
  }
  return 0;
}

/* cg's options; with `skeleton`, also the skeleton's --converged-iters (cg
 * rejects it as unknown). Returns 0 to run, 1 for --help, 2 for a bad argument
 * (message printed). */
static inline int cg_parse_args(const char *prog, int argc, char **argv, int rank, int skeleton, Options *o) {
  int n = 48, nx = 0, ny = 0, nz = 0, i, rc = 0;
  o->tol = 1e-8;
  o->max_iters = 10000;
  o->iters = 0;
  o->converged_iters = 0;
  o->precond = PRECOND_NONE;
  o->dot = DOT_ORDERED;
  o->repeats = 3;
  for (i = 1; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return 1;
    if (strcmp(a, "--n") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 1024, &n), i++;
    else if (strcmp(a, "--nx") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 1024, &nx), i++;
    else if (strcmp(a, "--ny") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 1024, &ny), i++;
    else if (strcmp(a, "--nz") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 1024, &nz), i++;
    else if (strcmp(a, "--tol") == 0) rc = cg_parse_double(prog, rank, a, v, 1e-15, 0.999, &o->tol), i++;
    else if (strcmp(a, "--max-iters") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 100000000, &o->max_iters), i++;
    else if (strcmp(a, "--iters") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 100000000, &o->iters), i++;
    else if (strcmp(a, "--repeats") == 0) rc = cg_parse_int(prog, rank, a, v, 1, 1000, &o->repeats), i++;
    else if (strcmp(a, "--precond") == 0) rc = cg_parse_choice(prog, rank, a, v, "none", "jacobi", &o->precond), i++;
    else if (strcmp(a, "--dot") == 0) rc = cg_parse_choice(prog, rank, a, v, "ordered", "plain", &o->dot), i++;
    else if (skeleton && strcmp(a, "--converged-iters") == 0)
      rc = cg_parse_int(prog, rank, a, v, 0, 100000000, &o->converged_iters), i++;
    else {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
      rc = 2;
    }
  }
  if (rc) return rc;
  o->nx = nx ? nx : n;
  o->ny = ny ? ny : n;
  o->nz = nz ? nz : n;
  if ((long long)o->nx * o->ny * o->nz > 100000000LL) {
    if (rank == 0)
      fprintf(stderr, "%s: grid %d x %d x %d too large (options --n/--nx/--ny/--nz; at most 1e8 rows)\n", prog, o->nx,
              o->ny, o->nz);
    return 2;
  }
  return 0;
}

/* Whether the grid splits into z-slabs over `ranks` ranks with 32-bit CSR
 * indices; returns 0 if it does, 2 if not (message printed). */
static inline int cg_check_decomposition(const char *prog, const Options *o, int ranks, int rank) {
  if (o->nz < ranks) {
    if (rank == 0)
      fprintf(stderr, "%s: --nz (%d) must be at least the number of ranks (%d): rows are split by z-planes\n", prog,
              o->nz, ranks);
    return 2;
  }
  if ((long long)o->nx * o->ny * (o->nz / ranks + 3) * 7 > 2000000000LL) {
    if (rank == 0)
      fprintf(stderr, "%s: local block too large for 32-bit CSR indices (options --n/--nx/--ny/--nz)\n", prog);
    return 2;
  }
  return 0;
}

/* The z-slab of rank r of `ranks`: nzl planes from global plane z0; with
 * nz = q*ranks + rem the first rem ranks get q+1 planes. */
static inline void cg_slab(int nz, int ranks, int r, int *z0, int *nzl) {
  int q = nz / ranks, rem = nz % ranks;
  *nzl = q + (r < rem ? 1 : 0);
  *z0 = r * q + (r < rem ? r : rem);
}

#endif /* CG_OPTIONS_H */

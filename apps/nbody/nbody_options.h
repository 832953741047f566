/* nbody_options.h — what nbody.c and its BSIM skeleton
 * (skeleton/nbody_skel.c) share, so that the two cannot drift apart: the
 * options (names, ranges, defaults, error messages) and the block distribution
 * of the bodies over the ranks.
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("nbody" or "nbody_skel"). No writable
 * globals: the skeleton's ranks share one process. */
#ifndef NBODY_OPTIONS_H
#define NBODY_OPTIONS_H 1

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FORCE_DIRECT = 0, FORCE_BH = 1 };
enum { INT_LEAPFROG = 0, INT_RK4 = 1 };

typedef struct {
  long bodies;
  long steps;
  double dt;
  double softening;
  double theta;
  int force;
  int integrator;
  unsigned long long seed;
  int repeats;
  double drift_bound;           /* <= 0: the default for force x integrator */
  double interactions_per_body; /* skeleton only (Barnes-Hut); <= 0: its model */
} Params;

static inline int nbody_bad_arg(const char *prog, int rank, const char *opt, const char *val, const char *why) {
  if (rank == 0) fprintf(stderr, "%s: invalid value '%s' for %s: %s\n", prog, val ? val : "", opt, why);
  return 0;
}

static inline int nbody_parse_long(const char *s, long *out) {
  char *end = NULL;
  long v;
  if (!s || !*s) return 0;
  v = strtol(s, &end, 10);
  if (*end != '\0') return 0;
  *out = v;
  return 1;
}

static inline int nbody_parse_double(const char *s, double *out) {
  char *end = NULL;
  double v;
  if (!s || !*s) return 0;
  v = strtod(s, &end);
  if (*end != '\0' || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

/* nbody's options; with `skeleton`, also the skeleton's
 * --interactions-per-body (nbody rejects it as unknown). Returns 1 to run, 0
 * on a bad argument (message printed), 2 for --help. */
static inline int nbody_parse_args(const char *prog, int argc, char **argv, int rank, int skeleton, Params *p) {
  static const char *const known[] = {"--bodies", "--steps",  "--dt",      "--softening",   "--theta",
                                      "--force",  "--integrator", "--seed", "--repeats", "--drift-bound",
                                      "--interactions-per-body"};
  const size_t nknown = sizeof known / sizeof known[0] - (skeleton ? 0 : 1);
  int a;
  p->bodies = 1000;
  p->steps = 100;
  p->dt = 0.01;
  p->softening = 0.05;
  p->theta = 0.5;
  p->force = FORCE_DIRECT;
  p->integrator = INT_LEAPFROG;
  p->seed = 12345ULL;
  p->repeats = 1;
  p->drift_bound = 0.0;
  p->interactions_per_body = 0.0;
  for (a = 1; a < argc; ++a) {
    const char *opt = argv[a], *val;
    size_t q;
    int found = 0;
    long l;
    double d;
    if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) return 2;
    for (q = 0; q < nknown; q++) found |= strcmp(opt, known[q]) == 0;
    if (!found) {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, opt);
      return 0;
    }
    if (a + 1 >= argc) {
      if (rank == 0) fprintf(stderr, "%s: option %s needs a value\n", prog, opt);
      return 0;
    }
    val = argv[++a];
    if (strcmp(opt, "--bodies") == 0) {
      if (!nbody_parse_long(val, &l) || l < 2 || l > 100000000L)
        return nbody_bad_arg(prog, rank, opt, val, "need an integer >= 2");
      p->bodies = l;
    } else if (strcmp(opt, "--steps") == 0) {
      if (!nbody_parse_long(val, &l) || l < 1) return nbody_bad_arg(prog, rank, opt, val, "need an integer >= 1");
      p->steps = l;
    } else if (strcmp(opt, "--dt") == 0) {
      if (!nbody_parse_double(val, &d) || d <= 0) return nbody_bad_arg(prog, rank, opt, val, "need a number > 0");
      p->dt = d;
    } else if (strcmp(opt, "--softening") == 0) {
      if (!nbody_parse_double(val, &d) || d <= 0) return nbody_bad_arg(prog, rank, opt, val, "need a number > 0");
      p->softening = d;
    } else if (strcmp(opt, "--theta") == 0) {
      if (!nbody_parse_double(val, &d) || d <= 0) return nbody_bad_arg(prog, rank, opt, val, "need a number > 0");
      p->theta = d;
    } else if (strcmp(opt, "--force") == 0) {
      if (strcmp(val, "direct") == 0) p->force = FORCE_DIRECT;
      else if (strcmp(val, "bh") == 0) p->force = FORCE_BH;
      else return nbody_bad_arg(prog, rank, opt, val, "need 'direct' or 'bh'");
    } else if (strcmp(opt, "--integrator") == 0) {
      if (strcmp(val, "leapfrog") == 0) p->integrator = INT_LEAPFROG;
      else if (strcmp(val, "rk4") == 0) p->integrator = INT_RK4;
      else return nbody_bad_arg(prog, rank, opt, val, "need 'leapfrog' or 'rk4'");
    } else if (strcmp(opt, "--seed") == 0) {
      if (!nbody_parse_long(val, &l) || l < 0) return nbody_bad_arg(prog, rank, opt, val, "need an integer >= 0");
      p->seed = (unsigned long long)l;
    } else if (strcmp(opt, "--repeats") == 0) {
      if (!nbody_parse_long(val, &l) || l < 1 || l > 1000)
        return nbody_bad_arg(prog, rank, opt, val, "need an integer in 1..1000");
      p->repeats = (int)l;
    } else if (strcmp(opt, "--drift-bound") == 0) {
      if (!nbody_parse_double(val, &d) || d <= 0) return nbody_bad_arg(prog, rank, opt, val, "need a number > 0");
      p->drift_bound = d;
    } else {
      if (!nbody_parse_double(val, &d) || d <= 0) return nbody_bad_arg(prog, rank, opt, val, "need a number > 0");
      p->interactions_per_body = d;
    }
  }
  return 1;
}

/* Contiguous blocks of the n bodies over `ranks` ranks, the first n % ranks
 * ranks one body more: counts[r] bodies from body displs[r]; counts3/displs3
 * the same in doubles (3 per body), for the MPI_Allgatherv of positions. */
static inline void nbody_blocks(int n, int ranks, int *counts, int *displs, int *counts3, int *displs3) {
  int r, off = 0;
  for (r = 0; r < ranks; ++r) {
    counts[r] = n / ranks + (r < n % ranks ? 1 : 0);
    displs[r] = off;
    counts3[r] = 3 * counts[r];
    displs3[r] = 3 * off;
    off += counts[r];
  }
}

#endif /* NBODY_OPTIONS_H */

/* mg_options.h — what mg.c and its BSIM skeleton (skeleton/mg_skel.c) share,
 * so that the two cannot drift apart: the options (names, ranges, defaults,
 * error messages), the checks of the process grid, the agglomeration rule and
 * the block decomposition of the levels (see the top of mg.c).
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("mg" or "mg_skel"). No writable globals:
 * the skeleton's ranks share one process. */
#ifndef MG_OPTIONS_H
#define MG_OPTIONS_H 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SMOOTH_JACOBI = 0, SMOOTH_RBGS = 1 };
enum { RESTRICT_FW = 0, RESTRICT_INJECT = 1 };

typedef struct {
  int n, nlev, cycles, pre, post, smoother, restriction, coarse_sweeps, min_local, repeats;
  int random_init;
  double omega, min_reduction;
  int p[3];
} Params;

static inline int mg_is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

static inline int mg_arg_error(const char *prog, int rank, const char *opt, const char *msg, const char *val) {
  if (rank == 0) fprintf(stderr, "%s: bad value for %s: %s (got '%s'); see --help\n", prog, opt, msg, val ? val : "");
  return 2;
}

static inline int mg_parse_long(const char *s, long *out) {
  char *end;
  long v;
  if (!s || !*s) return 0;
  v = strtol(s, &end, 10);
  if (*end) return 0;
  *out = v;
  return 1;
}

static inline int mg_parse_double(const char *s, double *out) {
  char *end;
  double v;
  if (!s || !*s) return 0;
  v = strtod(s, &end);
  if (*end) return 0;
  *out = v;
  return 1;
}

/* mg's options, as --opt value or --opt=value. Returns 0 on success, 1 for
 * --help (the caller prints its usage), 2 on a bad argument (message
 * printed). */
static inline int mg_parse_args(const char *prog, int argc, char **argv, int rank, Params *P) {
  static const char *const known[] = {"--n", "--levels", "--cycles", "--pre", "--post", "--smoother", "--omega",
                                      "--restriction", "--coarse-sweeps", "--min-local", "--px", "--py", "--pz",
                                      "--repeats", "--init", "--min-reduction"};
  int a, auto_levels = 0, t;
  P->n = 64;
  P->nlev = 0;
  P->cycles = 8;
  P->pre = 2;
  P->post = 2;
  P->smoother = SMOOTH_JACOBI;
  P->omega = 6.0 / 7.0;
  P->restriction = RESTRICT_FW;
  P->coarse_sweeps = 32;
  P->min_local = 4;
  P->repeats = 3;
  P->random_init = 1;
  P->min_reduction = 0.0;
  P->p[0] = P->p[1] = P->p[2] = 0;
  for (a = 1; a < argc; a++) {
    char opt[64];
    const char *val = NULL, *arg = argv[a], *eq = strchr(arg, '=');
    size_t q;
    int found = 0;
    long v = 0;
    double dv = 0;
    if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof opt) {
      memcpy(opt, arg, (size_t)(eq - arg));
      opt[eq - arg] = '\0';
      val = eq + 1;
    } else {
      snprintf(opt, sizeof opt, "%s", arg);
    }
    if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) return 1;
    for (q = 0; q < sizeof known / sizeof known[0]; q++) found |= strcmp(opt, known[q]) == 0;
    if (!found) {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s'; see --help\n", prog, arg);
      return 2;
    }
    if (!val) {
      if (a + 1 >= argc) {
        if (rank == 0) fprintf(stderr, "%s: option %s needs a value; see --help\n", prog, opt);
        return 2;
      }
      val = argv[++a];
    }
    if (strcmp(opt, "--smoother") == 0) {
      if (strcmp(val, "jacobi") == 0) P->smoother = SMOOTH_JACOBI;
      else if (strcmp(val, "rbgs") == 0) P->smoother = SMOOTH_RBGS;
      else return mg_arg_error(prog, rank, opt, "must be jacobi or rbgs", val);
    } else if (strcmp(opt, "--restriction") == 0) {
      if (strcmp(val, "fw") == 0) P->restriction = RESTRICT_FW;
      else if (strcmp(val, "injection") == 0) P->restriction = RESTRICT_INJECT;
      else return mg_arg_error(prog, rank, opt, "must be fw or injection", val);
    } else if (strcmp(opt, "--init") == 0) {
      if (strcmp(val, "random") == 0) P->random_init = 1;
      else if (strcmp(val, "zero") == 0) P->random_init = 0;
      else return mg_arg_error(prog, rank, opt, "must be random or zero", val);
    } else if (strcmp(opt, "--omega") == 0) {
      if (!mg_parse_double(val, &dv) || !(dv > 0.0 && dv <= 1.0))
        return mg_arg_error(prog, rank, opt, "must be a number in (0, 1]", val);
      P->omega = dv;
    } else if (strcmp(opt, "--min-reduction") == 0) {
      if (!mg_parse_double(val, &dv) || !(dv >= 0.0 && dv < 1e6))
        return mg_arg_error(prog, rank, opt, "must be a number >= 0", val);
      P->min_reduction = dv;
    } else {
      if (!mg_parse_long(val, &v)) return mg_arg_error(prog, rank, opt, "must be an integer", val);
      if (strcmp(opt, "--n") == 0) {
        if (!mg_is_pow2(v) || v < 4 || v > 4096)
          return mg_arg_error(prog, rank, opt, "must be a power of two in [4, 4096]", val);
        P->n = (int)v;
      } else if (strcmp(opt, "--levels") == 0) {
        if (v < 0 || v > 12) return mg_arg_error(prog, rank, opt, "must be 0 (automatic) or 1..12", val);
        P->nlev = (int)v;
      } else if (strcmp(opt, "--cycles") == 0) {
        if (v < 1 || v > 1000) return mg_arg_error(prog, rank, opt, "must be in [1, 1000]", val);
        P->cycles = (int)v;
      } else if (strcmp(opt, "--pre") == 0 || strcmp(opt, "--post") == 0) {
        if (v < 0 || v > 100) return mg_arg_error(prog, rank, opt, "must be in [0, 100]", val);
        if (opt[3] == 'r') P->pre = (int)v;
        else P->post = (int)v;
      } else if (strcmp(opt, "--coarse-sweeps") == 0) {
        if (v < 1 || v > 100000) return mg_arg_error(prog, rank, opt, "must be in [1, 100000]", val);
        P->coarse_sweeps = (int)v;
      } else if (strcmp(opt, "--min-local") == 0) {
        if (v < 2 || v > 100000) return mg_arg_error(prog, rank, opt, "must be an integer >= 2", val);
        P->min_local = (int)v;
      } else if (strcmp(opt, "--repeats") == 0) {
        if (v < 1 || v > 1000) return mg_arg_error(prog, rank, opt, "must be in [1, 1000]", val);
        P->repeats = (int)v;
      } else {
        if (v < 0 || v > 65536) return mg_arg_error(prog, rank, opt, "must be an integer >= 0 (0 = automatic)", val);
        P->p[opt[3] - 'x'] = (int)v;
      }
    }
  }
  if (P->pre + P->post == 0) {
    if (rank == 0) fprintf(stderr, "%s: bad value for --pre/--post: at least one smoothing sweep is needed\n", prog);
    return 2;
  }
  for (t = P->n; t > 1; t /= 2) auto_levels++; /* log2(n): coarsest level has 2 cells */
  if (P->nlev == 0) {
    P->nlev = auto_levels;
  } else if (P->nlev > auto_levels) {
    if (rank == 0)
      fprintf(stderr, "%s: bad value for --levels: at most log2(n) = %d levels for --n %d (got %d)\n", prog,
              auto_levels, P->n, P->nlev);
    return 2;
  }
  return 0;
}

/* Whether the processes fixed by --px/--py/--pz (0 = free) can be completed by
 * MPI_Dims_create to a grid of `ranks` processes. */
static inline int mg_fixed_dims_fit(const Params *P, int ranks) {
  long fixed = 1;
  int d;
  for (d = 0; d < 3; d++)
    if (P->p[d]) fixed *= P->p[d];
  return !(ranks % fixed != 0 || (P->p[0] && P->p[1] && P->p[2] && fixed != ranks));
}

/* The message when they cannot (or MPI_Dims_create fails); returns 2. */
static inline int mg_bad_dims(const char *prog, const Params *P, int ranks, int rank) {
  if (rank == 0)
    fprintf(stderr, "%s: bad value for --px/--py/--pz: %d x %d x %d does not fit %d ranks\n", prog, P->p[0], P->p[1],
            P->p[2], ranks);
  return 2;
}

/* Whether the finest level splits over the process grid `dims` into blocks of
 * at least two points; returns 0 if it does, 2 if not (message printed). */
static inline int mg_check_split(const char *prog, const Params *P, const int dims[3], int rank) {
  int d;
  for (d = 0; d < 3; d++) {
    if (P->n % dims[d] != 0 || P->n / dims[d] < 2) {
      if (rank == 0)
        fprintf(stderr,
                "%s: bad value for --n: %d cells do not split into blocks of >= 2 points over %d ranks "
                "in dimension %c (process grid %d x %d x %d; use more cells or set --px/--py/--pz)\n",
                prog, P->n, dims[d], 'x' + d, dims[0], dims[1], dims[2]);
      return 2;
    }
  }
  return 0;
}

/* The agglomeration rule: how many levels, from the finest, stay distributed
 * over the `ranks` processes of the grid `dims` (the others live on rank 0). */
static inline int mg_distributed_levels(const Params *P, const int dims[3], int ranks) {
  int l, d;
  if (ranks > 1) {
    for (l = 1; l < P->nlev; l++) {
      int nl = P->n >> l, ok = 1;
      for (d = 0; d < 3; d++)
        if (nl % dims[d] != 0 || nl / dims[d] < P->min_local) ok = 0;
      if (!ok) return l;
    }
  }
  return P->nlev;
}

/* The block of the rank at `coords` on a level of nl cells per dimension:
 * m[d] owned points from global index off[d]. Distributed levels are cut over
 * `dims`; pass dims = {1, 1, 1} and coords = {0, 0, 0} for a level on rank 0
 * alone. */
static inline void mg_level_block(int nl, const int dims[3], const int coords[3], int m[3], int off[3]) {
  int d;
  for (d = 0; d < 3; d++) {
    m[d] = nl / dims[d];
    off[d] = coords[d] * m[d];
  }
}

/* The block of the rank at `coords` on the shadow of level ndist (the first
 * agglomerated one): level ndist cut over all ranks, each block half its block
 * of level ndist - 1, for the gather to rank 0 and the scatter back. */
static inline void mg_shadow_block(const Params *P, int ndist, const int dims[3], const int coords[3], int m[3],
                                   int off[3]) {
  int d;
  for (d = 0; d < 3; d++) {
    m[d] = (P->n >> (ndist - 1)) / dims[d] / 2;
    off[d] = coords[d] * m[d];
  }
}

#endif /* MG_OPTIONS_H */

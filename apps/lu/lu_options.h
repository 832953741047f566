/* lu_options.h — what lu.c and its BSIM skeleton (skeleton/lu_skel.c) share,
 * so that the two cannot drift apart: the options (names, ranges, defaults,
 * error messages), the P x Q process grid and the 2D block-cyclic layout.
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("lu" or "lu_skel"). No writable globals:
 * the skeleton's ranks share one process. */
#ifndef LU_OPTIONS_H
#define LU_OPTIONS_H 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int n, nb, p, q;
  unsigned long long seed;
  int repeats;
} LuOptions;

static inline int lu_parse_int(const char *prog, int rank, const char *opt, const char *s, int lo, int hi, int *out) {
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
static inline int lu_parse_args(const char *prog, int argc, char **argv, int rank, LuOptions *o) {
  int i, rc = 0, seed = 1;
  o->n = 512;
  o->nb = 32;
  o->p = 0;
  o->q = 0;
  o->repeats = 3;
  for (i = 1; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return 1;
    /* n is capped so that rank 0 can hold the gathered n x n factors for the check */
    if (strcmp(a, "--n") == 0) rc = lu_parse_int(prog, rank, a, v, 1, 8192, &o->n), i++;
    else if (strcmp(a, "--nb") == 0) rc = lu_parse_int(prog, rank, a, v, 1, 1024, &o->nb), i++;
    else if (strcmp(a, "--p") == 0) rc = lu_parse_int(prog, rank, a, v, 1, 4096, &o->p), i++;
    else if (strcmp(a, "--q") == 0) rc = lu_parse_int(prog, rank, a, v, 1, 4096, &o->q), i++;
    else if (strcmp(a, "--seed") == 0) rc = lu_parse_int(prog, rank, a, v, 0, 2147483647, &seed), i++;
    else if (strcmp(a, "--repeats") == 0) rc = lu_parse_int(prog, rank, a, v, 1, 1000, &o->repeats), i++;
    else {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
      rc = 2;
    }
  }
  o->seed = (unsigned long long)seed;
  return rc;
}

/* Fills o->p x o->q = ranks: both given must multiply to it, one given fixes
 * the other, none gives the most square grid with p <= q (HPL's advice: the
 * panel factorisation runs down a process column of p ranks). Returns 0, or
 * 2 with a message. */
static inline int lu_choose_grid(const char *prog, LuOptions *o, int ranks, int rank) {
  if (o->p == 0 && o->q == 0) {
    int p;
    for (p = 1; p * p <= ranks; p++)
      if (ranks % p == 0) o->p = p;
    o->q = ranks / o->p;
  } else if (o->q == 0) {
    if (ranks % o->p != 0) {
      if (rank == 0) fprintf(stderr, "%s: --p %d does not divide the %d ranks\n", prog, o->p, ranks);
      return 2;
    }
    o->q = ranks / o->p;
  } else if (o->p == 0) {
    if (ranks % o->q != 0) {
      if (rank == 0) fprintf(stderr, "%s: --q %d does not divide the %d ranks\n", prog, o->q, ranks);
      return 2;
    }
    o->p = ranks / o->q;
  }
  if ((long long)o->p * o->q != ranks) {
    if (rank == 0) fprintf(stderr, "%s: grid --p %d x --q %d is not the %d ranks\n", prog, o->p, o->q, ranks);
    return 2;
  }
  return 0;
}

/* 2D block-cyclic layout with blocks of nb, process 0 owning the first block:
 * how many of the indices [0, g) process `proc` of `procs` owns. */
static inline int lu_owned_below(int g, int nb, int proc, int procs) {
  int cycles = g / (nb * procs), rest = g - cycles * nb * procs - proc * nb;
  if (rest < 0) rest = 0;
  if (rest > nb) rest = nb;
  return cycles * nb + rest;
}
static inline int lu_owner(int g, int nb, int procs) { return (g / nb) % procs; }
static inline int lu_local_index(int g, int nb, int procs) { return (g / (nb * procs)) * nb + g % nb; }
static inline int lu_global_index(int l, int nb, int proc, int procs) { return ((l / nb) * procs + proc) * nb + l % nb; }

/* HPL's operation count of an n x n LU and solve. */
static inline double lu_flops(int n) { return 2.0 / 3.0 * (double)n * n * n + 1.5 * (double)n * n; }

#endif /* LU_OPTIONS_H */

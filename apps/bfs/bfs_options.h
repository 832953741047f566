/* bfs_options.h — what bfs.c and its BSIM skeleton (skeleton/bfs_skel.c)
 * share, so that the two cannot drift apart: the options (names, ranges,
 * defaults, error messages, --opt value or --opt=value).
 *
 * Plain C99 and no MPI types: the app is compiled against Open MPI's mpi.h,
 * the skeleton against perfcast's. Messages go to stderr from rank 0 only,
 * after the program's name `prog` ("bfs" or "bfs_skel"). No writable globals:
 * the skeleton's ranks share one process. */
#ifndef BFS_OPTIONS_H
#define BFS_OPTIONS_H 1

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BFS_DEFAULT_LEVELS 6 /* skeleton: levels of a search without --levels */
#define BFS_MAX_ROOTS 4096

typedef struct {
  int scale;
  int edgefactor;
  int roots;
  uint64_t seed;
  int repeats;
  int corrupt_parent; /* bfs only, hidden, for tests: damage one parent entry */
  /* the skeleton's own inputs (bfs computes them) */
  int root_batches;           /* batches of 64 candidate roots drawn */
  int nlevels;                /* how many --levels values were given (0: none) */
  int levels[BFS_MAX_ROOTS];  /* per root */
} Options;

static inline int bfs_parse_int(const char *prog, int rank, const char *opt, const char *text, long long lo,
                                long long hi, long long *out) {
  char *end = NULL;
  long long v;
  errno = 0;
  v = strtoll(text, &end, 0);
  if (errno || end == text || *end != '\0' || v < lo || v > hi) {
    if (rank == 0) fprintf(stderr, "%s: %s: expected an integer in [%lld, %lld], got '%s'\n", prog, opt, lo, hi, text);
    return 2;
  }
  *out = v;
  return 0;
}

/* --levels L1,L2,...: one level count per root. */
static inline int bfs_parse_levels(const char *prog, int rank, const char *opt, const char *value, Options *o) {
  const char *s = value;
  long long v = 0;
  o->nlevels = 0;
  while (*s) {
    char item[32];
    size_t len = strcspn(s, ",");
    if (len == 0 || len >= sizeof item || o->nlevels >= BFS_MAX_ROOTS) {
      if (rank == 0) fprintf(stderr, "%s: %s: expected a comma-separated list, got '%s'\n", prog, opt, value);
      return 2;
    }
    memcpy(item, s, len);
    item[len] = '\0';
    if (bfs_parse_int(prog, rank, opt, item, 1, 1 << 30, &v)) return 2;
    o->levels[o->nlevels++] = (int)v;
    s += len;
    if (*s == ',') s++;
  }
  return 0;
}

/* bfs's options; with `skeleton`, also the skeleton's --levels and
 * --root-batches (bfs rejects them as unknown), and without bfs's hidden
 * --corrupt-parent. Returns 0 ok, 1 for --help (the caller prints its usage),
 * 2 on a bad argument (message printed). */
static inline int bfs_parse_args(const char *prog, int argc, char **argv, int rank, int skeleton, Options *o) {
  int i;
  o->scale = 12;
  o->edgefactor = 16;
  o->roots = 8;
  o->seed = 1;
  o->repeats = 1;
  o->corrupt_parent = 0;
  o->root_batches = 0;
  o->nlevels = 0;
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = NULL, *eq;
    char name[64];
    long long v = 0;
    int known;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return 1;
    if (!skeleton && strcmp(arg, "--corrupt-parent") == 0) {
      o->corrupt_parent = 1;
      continue;
    }
    eq = strchr(arg, '=');
    if (eq && (size_t)(eq - arg) < sizeof name) {
      memcpy(name, arg, (size_t)(eq - arg));
      name[eq - arg] = '\0';
      value = eq + 1;
    } else {
      snprintf(name, sizeof name, "%s", arg);
    }
    known = strcmp(name, "--scale") == 0 || strcmp(name, "--edgefactor") == 0 || strcmp(name, "--roots") == 0 ||
            strcmp(name, "--seed") == 0 || strcmp(name, "--repeats") == 0 ||
            (skeleton && (strcmp(name, "--levels") == 0 || strcmp(name, "--root-batches") == 0));
    if (!known) {
      if (rank == 0) fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, arg);
      return 2;
    }
    if (!value) {
      if (i + 1 >= argc) {
        if (rank == 0) fprintf(stderr, "%s: %s: missing value\n", prog, name);
        return 2;
      }
      value = argv[++i];
    }
    if (strcmp(name, "--seed") == 0) {
      char *end = NULL;
      unsigned long long s;
      errno = 0;
      s = strtoull(value, &end, 0);
      if (errno || end == value || *end != '\0' || value[0] == '-') {
        if (rank == 0) fprintf(stderr, "%s: --seed: expected an unsigned 64-bit integer, got '%s'\n", prog, value);
        return 2;
      }
      o->seed = (uint64_t)s;
    } else if (strcmp(name, "--scale") == 0) {
      if (bfs_parse_int(prog, rank, name, value, 1, 32, &v)) return 2;
      o->scale = (int)v;
    } else if (strcmp(name, "--edgefactor") == 0) {
      if (bfs_parse_int(prog, rank, name, value, 1, 1024, &v)) return 2;
      o->edgefactor = (int)v;
    } else if (strcmp(name, "--roots") == 0) {
      if (bfs_parse_int(prog, rank, name, value, 0, BFS_MAX_ROOTS, &v)) return 2;
      o->roots = (int)v;
    } else if (strcmp(name, "--repeats") == 0) {
      if (bfs_parse_int(prog, rank, name, value, 1, 1000, &v)) return 2;
      o->repeats = (int)v;
    } else if (strcmp(name, "--levels") == 0) {
      if (bfs_parse_levels(prog, rank, name, value, o)) return 2;
    } else {
      if (bfs_parse_int(prog, rank, name, value, 1, 1 << 30, &v)) return 2;
      o->root_batches = (int)v;
    }
  }
  if (!skeleton) return 0;
  if (o->nlevels != 0 && o->nlevels != o->roots) {
    if (rank == 0)
      fprintf(stderr, "%s: --levels: %d values given for %d roots (one per root, as bfs's JSON \"levels\")\n", prog,
              o->nlevels, o->roots);
    return 2;
  }
  if (o->nlevels == 0)
    for (i = 0; i < o->roots; i++) o->levels[i] = BFS_DEFAULT_LEVELS;
  /* bfs draws batches until it has its roots: none for 0 roots. */
  if (o->root_batches == 0) o->root_batches = o->roots ? 1 + (o->roots - 1) / 32 : 0;
  return 0;
}

#endif /* BFS_OPTIONS_H */

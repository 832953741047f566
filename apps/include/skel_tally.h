/* The bytes a skeleton rank hands to its communication calls, per kind (the
 * names of perfcast's event kinds), so that a test can compare them with what
 * a PMPI shim counts in a real run of the app (tests/apps/cg/mpi_count.c uses
 * the same definition: the send side of the rank -- bytes sent point to point,
 * count*size of a reduction or bcast, the rank's own block of a gather(v) or
 * allgather(v), the sum of its send counts of an alltoall(v)).
 *
 * Each rank keeps its tally in a local of main (ranks share the process's
 * globals, docs/skeletons.md) and prints it once to stdout, so counting adds
 * no MPI call:  skel_bytes rank=R isend=... allreduce=... */
#ifndef PERFCAST_SKEL_TALLY_H
#define PERFCAST_SKEL_TALLY_H 1

#include <stdio.h>

enum {
  TALLY_ISEND, TALLY_SENDRECV, TALLY_BCAST, TALLY_REDUCE, TALLY_ALLREDUCE, TALLY_GATHERV, TALLY_SCATTERV,
  TALLY_ALLGATHERV, TALLY_ALLTOALL, TALLY_ALLTOALLV, TALLY_KINDS
};

typedef struct {
  long long bytes[TALLY_KINDS];
} SkelTally;

static inline void tally_add(SkelTally *t, int kind, long long bytes) { t->bytes[kind] += bytes; }

static inline void tally_print(const SkelTally *t, int world_rank) {
  static const char *const names[TALLY_KINDS] = {"isend",    "sendrecv",   "bcast",    "reduce",
                                                  "allreduce", "gatherv",   "scatterv", "allgatherv",
                                                  "alltoall", "alltoallv"};
  char line[1024];
  int k, n = snprintf(line, sizeof line, "skel_bytes rank=%d", world_rank);
  for (k = 0; k < TALLY_KINDS && n < (int)sizeof line - 48; k++)
    if (t->bytes[k]) n += snprintf(line + n, sizeof line - (size_t)n, " %s=%lld", names[k], t->bytes[k]);
  printf("%s\n", line);
}

#endif /* PERFCAST_SKEL_TALLY_H */

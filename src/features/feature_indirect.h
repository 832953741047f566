/* The runtime's side of the indirect-call probes (feature_indirect.c), for
 * the record written at MPI_Finalize (feature_runtime.c). */
#ifndef PERFCAST_FEATURES_FEATURE_INDIRECT_H
#define PERFCAST_FEATURES_FEATURE_INDIRECT_H

/* Collective over MPI_COMM_WORLD: every rank's indirect call sites, their
 * targets named and their calls summed over the ranks, as the JSON object of
 * the record's `indirect_calls`; on rank 0 (malloc'ed, the caller frees), NULL
 * elsewhere or when memory ran out. */
char* perfcast_features_gather_indirect(int rank, int ranks);

#endif

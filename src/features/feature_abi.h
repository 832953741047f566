/* The contract between the probes the pass inserts (feature_pass.cpp) and the
 * runtime that keeps and records them (feature_runtime.c). C, because the
 * runtime is C; the pass builds the same layouts as LLVM types.
 *
 * Every instrumented module owns one array of slots, one per feature, and a
 * constructor that registers the module's descriptor before main. Probes write
 * their slot with plain loads and stores (no locks, no atomics but the epoch
 * clock's load): a feature updated by several threads at once may lose
 * updates, which the method tolerates. */
#ifndef PERFCAST_FEATURES_FEATURE_ABI_H
#define PERFCAST_FEATURES_FEATURE_ABI_H

#include <stdint.h>

/* How a feature is reduced over ranks when the run ends. */
enum perfcast_feature_kind {
  PERFCAST_FEATURE_COUNT = 0, /* `count` summed over ranks (branches, loops, MPI calls and bytes) */
  PERFCAST_FEATURE_VALUE = 1, /* `value` when `assigned`: the maximum over the ranks that assigned it */
  /* A fact of the code the pass knew when it compiled it (the source line a
   * branch's side starts at): `value`, set in the slot's initialiser, the same
   * on every rank; recorded in the record's `code` object, not as a feature. */
  PERFCAST_FEATURE_CODE = 2,
  /* A measure for `perfcast probe`, not a feature of the learned models:
   * `count` summed over the ranks, recorded in the record's `measures` object
   * (an integer variable's assignments, the sum of the values assigned, and
   * how many of them differed from the value before). */
  PERFCAST_FEATURE_MEASURE = 3
};

/* One feature's slot. `epoch_ms`: the epoch clock when the feature last changed. */
struct perfcast_feature_slot {
  int64_t count;
  double value;
  uint32_t epoch_ms;
  uint32_t assigned;
};

/* One module's features, registered by its constructor. `next` belongs to the runtime. */
struct perfcast_feature_module {
  struct perfcast_feature_module* next;
  uint32_t features;
  const char* const* names;  /* file:line:what, one per slot */
  const uint8_t* kinds;      /* enum perfcast_feature_kind, one per slot */
  struct perfcast_feature_slot* slots;
};

/* Indirect calls: per call through a pointer, the targets it reached and how
 * often (docs/program-model.md, "Probe runs"). The probe before the call
 * looks the target up in the site's small cache, at the entry its address
 * picks (PERFCAST_INDIRECT_CACHE_INDEX), and counts there when it is that
 * entry's target; else it hands the target to the runtime
 * (PERFCAST_FEATURES_INDIRECT), which moves the entry's counts to `table` and
 * gives the entry to the new target. A module also lists its functions that
 * a pointer may hold (address taken, or external), by address and linkage
 * name: the runtime names each target from these tables, so static functions
 * and those of other units are named as the analyser names them. */
#define PERFCAST_INDIRECT_CACHE 16
/* Fibonacci hashing of the address without its alignment bits (functions
 * are 16-byte aligned): the top 4 bits of the product. */
#define PERFCAST_INDIRECT_HASH 0x9E3779B97F4A7C15ull
#define PERFCAST_INDIRECT_CACHE_INDEX(target) \
  ((size_t)(((((uint64_t)(uintptr_t)(target)) >> 4) * PERFCAST_INDIRECT_HASH) >> 60))

struct perfcast_indirect_target {
  void* target;
  int64_t calls;
};

struct perfcast_indirect_site {
  const char* name; /* file:line:column of the call */
  void* table;      /* the runtime's */
  struct perfcast_indirect_target cache[PERFCAST_INDIRECT_CACHE];
};

struct perfcast_indirect_module {
  struct perfcast_indirect_module* next; /* the runtime's */
  uint32_t sites, functions;
  struct perfcast_indirect_site* site_records;
  void* const* function_addresses;
  const char* const* function_names;
};

#define PERFCAST_FEATURES_REGISTER "__perfcast_features_register"
#define PERFCAST_FEATURES_REGISTER_INDIRECT "__perfcast_features_register_indirect"
/* A call at `site` to a target its cache does not hold: (site, target). */
#define PERFCAST_FEATURES_INDIRECT "__perfcast_features_indirect"
/* Milliseconds since MPI_Init (0 before it), advanced by the runtime's clock thread. */
#define PERFCAST_FEATURES_NOW "__perfcast_features_now_ms"
/* Before an MPI call that moves data: (calls slot, bytes slot, count, datatype). */
#define PERFCAST_FEATURES_MPI "__perfcast_features_mpi"
/* The same before a Fortran binding's call (mpi_send_): the count read
 * through its reference, the datatype a Fortran handle's address. */
#define PERFCAST_FEATURES_MPI_FORTRAN "__perfcast_features_mpi_fortran"
/* The environment variable naming the dataset file records are appended to. */
#define PERFCAST_FEATURES_DATASET_VARIABLE "PERFCAST_FEATURES_DATASET"
/* Optional, set by `perfcast probe`: the record also carries, for each feature
 * and measure whose value differs between the ranks, every rank's value
 * (`per_rank`), in runs of at most PERFCAST_FEATURES_PER_RANK_MAX ranks. */
#define PERFCAST_FEATURES_PER_RANK_VARIABLE "PERFCAST_FEATURES_PER_RANK"
#define PERFCAST_FEATURES_PER_RANK_MAX 64
/* Optional: a label the record carries (`perfcast sweep` names its point so). */
#define PERFCAST_FEATURES_LABEL_VARIABLE "PERFCAST_FEATURES_LABEL"
/* Optional: the stop file of a run to be stopped early (`perfcast learn
 * predict --run`, docs/learn.md "Stopping a run early"), text lines:
 *   perfcast-features-stop 1
 *   report_dir DIR        where rank R writes rank-R.features.json
 *   horizon_ms H          never report before H ms since MPI_Init
 *   settle_ms S           every watched feature unchanged for S ms
 *   feature NAME          one line per feature the model reads */
#define PERFCAST_FEATURES_STOP_VARIABLE "PERFCAST_FEATURES_STOP"

#ifdef __cplusplus
extern "C" {
#endif
void __perfcast_features_register(struct perfcast_feature_module* module);
void __perfcast_features_register_indirect(struct perfcast_indirect_module* module);
void __perfcast_features_indirect(struct perfcast_indirect_site* site, void* target);
void __perfcast_features_mpi(struct perfcast_feature_slot* calls, struct perfcast_feature_slot* bytes,
                             int64_t count, void* datatype);
void __perfcast_features_mpi_fortran(struct perfcast_feature_slot* calls, struct perfcast_feature_slot* bytes,
                                     int64_t count, const int32_t* datatype);
#ifdef __cplusplus
}
#endif

#endif

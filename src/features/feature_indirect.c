/* The probes' runtime for calls through pointers (feature_abi.h,
 * perfcast_indirect_site): each site's targets and their calls, named when the
 * run ends and gathered to rank 0 as the record's `indirect_calls` object,
 * `{"file.c:27:9": {"jacobi": 40, "gauss_seidel": 20}, ...}` (a site never
 * executed has no targets). Like the rest of the runtime it never aborts: a
 * target it cannot keep (no memory) is logged once and left out. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/feature_abi.h"
#include "features/feature_indirect.h"
#include "features/feature_text.h"

#define EXPORT __attribute__((visibility("default")))

struct target_count {
  void* target;
  int64_t calls;
};

/* A site's earlier targets, kept in its `table`: blocks of a fixed size,
 * chained. A target once added stays where it is, so a call to a target seen
 * before finds it and adds its calls without a lock (the common case of a
 * site whose targets alternate); adding one takes the lock. */
#define TARGETS_PER_BLOCK 8
struct target_table {
  size_t size; /* entries filled, published with release */
  struct target_count entries[TARGETS_PER_BLOCK];
  struct target_table* more;
};

static struct perfcast_indirect_module* indirect_modules = NULL;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static int indirect_logged = 0;

EXPORT void __perfcast_features_register_indirect(struct perfcast_indirect_module* module) {
  /* Constructors run one at a time before main: no lock needed. */
  module->next = indirect_modules;
  indirect_modules = module;
}

static struct target_count* find_target(struct target_table* t, void* target) {
  for (; t; t = __atomic_load_n(&t->more, __ATOMIC_ACQUIRE)) {
    size_t n = __atomic_load_n(&t->size, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < n; ++i)
      if (t->entries[i].target == target) return &t->entries[i];
  }
  return NULL;
}

/* Adds `calls` calls of `target` to the site's table. */
static void add_calls(struct perfcast_indirect_site* site, void* target, int64_t calls) {
  if (calls <= 0) return;
  struct target_count* found = find_target(__atomic_load_n((struct target_table**)&site->table, __ATOMIC_ACQUIRE), target);
  if (!found) {
    pthread_mutex_lock(&tables_lock);
    struct target_table** last = (struct target_table**)&site->table;
    found = find_target(*last, target); /* another thread may have added it */
    while (!found && *last && (*last)->size == TARGETS_PER_BLOCK) last = &(*last)->more;
    if (!found && !*last) {
      struct target_table* fresh = calloc(1, sizeof *fresh);
      if (fresh) __atomic_store_n(last, fresh, __ATOMIC_RELEASE);
    }
    if (!found && *last) {
      struct target_table* t = *last;
      found = &t->entries[t->size];
      found->target = target;
      found->calls = 0;
      __atomic_store_n(&t->size, t->size + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tables_lock);
    if (!found) {
      if (!indirect_logged) fputs("perfcast features: out of memory keeping an indirect call's targets\n", stderr);
      indirect_logged = 1;
      return;
    }
  }
  __atomic_fetch_add(&found->calls, calls, __ATOMIC_RELAXED);
}

/* The slow path of the probe: a call to a target the site's cache does not
 * hold. The cache entry's calls go to the table, and the entry counts the new one. */
EXPORT void __perfcast_features_indirect(struct perfcast_indirect_site* site, void* target) {
  struct perfcast_indirect_target* entry = &site->cache[PERFCAST_INDIRECT_CACHE_INDEX(target)];
  void* last = entry->target;
  int64_t calls = entry->calls;
  entry->target = target;
  entry->calls = 1;
  add_calls(site, last, calls);
}

/* The target's name: from the modules' tables (the linkage name, static
 * functions included), else the dynamic symbol (a library's function), else
 * its address. */
static void target_name(void* target, char* out, size_t size) {
  for (struct perfcast_indirect_module* m = indirect_modules; m; m = m->next)
    for (uint32_t i = 0; i < m->functions; ++i)
      if (m->function_addresses[i] == target) {
        snprintf(out, size, "%s", m->function_names[i]);
        return;
      }
  Dl_info info;
  if (dladdr(target, &info) && info.dli_sname && info.dli_saddr == target) {
    snprintf(out, size, "%s", info.dli_sname);
    return;
  }
  snprintf(out, size, "0x%llx", (unsigned long long)(uintptr_t)target);
}

/* Text that grows; `failed` once out of memory. */
/* This rank's sites as lines `site\ttarget\tcalls\n`; a site with no calls
 * as `site\t\t0`, so that the record says it was never executed. */
static void rank_lines(struct feature_text* out) {
  char line[1024], name[512];
  for (struct perfcast_indirect_module* m = indirect_modules; m; m = m->next)
    for (uint32_t s = 0; s < m->sites; ++s) {
      struct perfcast_indirect_site* site = &m->site_records[s];
      for (int c = 0; c < PERFCAST_INDIRECT_CACHE; ++c) {
        add_calls(site, site->cache[c].target, site->cache[c].calls);
        site->cache[c].calls = 0;
      }
      struct target_table* t = site->table;
      if (!t) {
        snprintf(line, sizeof line, "%s\t\t0\n", site->name);
        feature_text_append(out, line, strlen(line));
      }
      for (; t; t = t->more)
        for (size_t i = 0; i < t->size; ++i) {
          target_name(t->entries[i].target, name, sizeof name);
          snprintf(line, sizeof line, "%s\t%s\t%lld\n", site->name, name, (long long)t->entries[i].calls);
          feature_text_append(out, line, strlen(line));
        }
    }
}

static int by_text(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Every rank's lines, sorted, as one JSON object: a site's targets with
 * their calls summed over the ranks. */
static char* merged_json(char* all, int total) {
  size_t n = 0;
  for (int i = 0; i < total; ++i) n += all[i] == '\n';
  char** lines = calloc(n + 1, sizeof *lines);
  struct feature_text out = {0};
  if (!lines) return NULL;
  size_t k = 0;
  for (char *p = all, *end = all + total; p < end && k < n;) {
    char* nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    *nl = '\0';
    lines[k++] = p;
    p = nl + 1;
  }
  qsort(lines, k, sizeof *lines, by_text);
  feature_text_append(&out, "{", 1);
  const char* open_site = NULL;
  size_t open_len = 0;
  int first_target = 1;
  for (size_t i = 0; i < k;) {
    char* site_end = strchr(lines[i], '\t');
    char* target_end = site_end ? strchr(site_end + 1, '\t') : NULL;
    if (!target_end) {
      ++i;
      continue;
    }
    size_t site_len = (size_t)(site_end - lines[i]);
    size_t target_len = (size_t)(target_end - site_end - 1);
    long long calls = 0;
    size_t j = i;
    /* The same site and target from every rank (sorted together). */
    for (; j < k && strncmp(lines[j], lines[i], (size_t)(target_end - lines[i]) + 1) == 0; ++j)
      calls += atoll(strrchr(lines[j], '\t') + 1);
    if (!open_site || open_len != site_len || strncmp(open_site, lines[i], site_len) != 0) {
      if (open_site) feature_text_append(&out, "},", 2);
      feature_text_append_json(&out, lines[i], site_len);
      feature_text_append(&out, ":{", 2);
      open_site = lines[i];
      open_len = site_len;
      first_target = 1;
    }
    if (target_len > 0 && calls > 0) {
      char number[32];
      if (!first_target) feature_text_append(&out, ",", 1);
      first_target = 0;
      feature_text_append_json(&out, site_end + 1, target_len);
      snprintf(number, sizeof number, ":%lld", calls);
      feature_text_append(&out, number, strlen(number));
    }
    i = j;
  }
  if (open_site) feature_text_append(&out, "}", 1);
  feature_text_append(&out, "}", 1);
  free(lines);
  if (out.failed) {
    free(out.data);
    return NULL;
  }
  return out.data;
}

char* perfcast_features_gather_indirect(int rank, int ranks) {
  struct feature_text mine = {0};
  rank_lines(&mine);
  int size = mine.failed ? 0 : (int)mine.size;
  int* sizes = rank == 0 ? calloc((size_t)ranks, sizeof *sizes) : NULL;
  int* offsets = rank == 0 ? calloc((size_t)ranks, sizeof *offsets) : NULL;
  /* Every rank takes part in each step; rank 0 says first whether it has the
   * memory to receive, and the steps it cannot take are skipped by all. */
  int ok = rank != 0 || (sizes && offsets);
  PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok) PMPI_Gather(&size, 1, MPI_INT, sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char* all = NULL;
  int total = 0;
  if (ok && rank == 0) {
    for (int r = 0; r < ranks; ++r) {
      offsets[r] = total;
      total += sizes[r];
    }
    all = malloc((size_t)total + 1);
    ok = all != NULL;
  }
  PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok)
    PMPI_Gatherv(mine.data ? mine.data : "", size, MPI_CHAR, all, sizes, offsets, MPI_CHAR, 0, MPI_COMM_WORLD);
  char* json = NULL;
  if (ok && rank == 0) {
    all[total] = '\0';
    json = merged_json(all, total);
  }
  free(all);
  free(sizes);
  free(offsets);
  free(mine.data);
  return json;
}

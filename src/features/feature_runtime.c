/* The runtime of the feature probes (feature_abi.h), linked into the user's
 * MPI program by `perfcast cc --features`. It keeps each instrumented module's
 * slots, runs the coarse epoch clock from MPI_Init on, and at MPI_Finalize
 * (PMPI) reduces the features over the ranks and has rank 0 append one record
 * to the dataset named by PERFCAST_FEATURES_DATASET (docs/learn.md,
 * "Recording features"). With PERFCAST_FEATURES_STOP set, the clock thread
 * also watches a learned model's features and, once they have settled, writes
 * this rank's features to a report file for perfcast, which ends the job
 * ("Stopping a run early").
 *
 * It lives inside someone else's program: nothing here aborts or exits. A
 * failure (no memory, an unwritable file, ranks with different features) is
 * logged to stderr once and the record is skipped; the program's own MPI
 * calls go on as they would. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "features/feature_abi.h"
#include "features/feature_indirect.h"
#include "features/feature_text.h"
#include "support/crc32.h"

#define EXPORT __attribute__((visibility("default")))

/* The epoch clock the probes read (a relaxed atomic load). */
EXPORT uint32_t __perfcast_features_now_ms = 0;

static struct perfcast_feature_module* modules = NULL;
static struct timespec init_time;
static int in_mpi = 0; /* between our MPI_Init and MPI_Finalize */
static int clock_running = 0;
static int clock_stop = 0;
static pthread_t clock_thread;
static int logged = 0;

/* The epoch clock's resolution: coarse on purpose, a wake-up per tick. */
#define CLOCK_TICK_NS 5000000L

static void log_once(const char* format, ...) {
  if (logged) return;
  logged = 1;
  va_list args;
  va_start(args, format);
  fputs("perfcast features: ", stderr);
  vfprintf(stderr, format, args);
  fputs("\n", stderr);
  va_end(args);
}

static double seconds_since_init(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - init_time.tv_sec) + 1e-9 * (double)(now.tv_nsec - init_time.tv_nsec);
}

static void watch_stop(uint32_t now_ms);

static void* clock_main(void* unused) {
  (void)unused;
  struct timespec tick = {0, CLOCK_TICK_NS};
  while (!__atomic_load_n(&clock_stop, __ATOMIC_RELAXED)) {
    nanosleep(&tick, NULL);
    uint32_t now_ms = (uint32_t)(seconds_since_init() * 1e3);
    __atomic_store_n(&__perfcast_features_now_ms, now_ms, __ATOMIC_RELAXED);
    watch_stop(now_ms);
  }
  return NULL;
}

static void stamp(struct perfcast_feature_slot* slot) {
  slot->epoch_ms = __atomic_load_n(&__perfcast_features_now_ms, __ATOMIC_RELAXED);
}

EXPORT void __perfcast_features_register(struct perfcast_feature_module* module) {
  /* Constructors run one at a time before main: no lock needed. */
  module->next = modules;
  modules = module;
}

EXPORT void __perfcast_features_mpi(struct perfcast_feature_slot* calls, struct perfcast_feature_slot* bytes,
                                    int64_t count, void* datatype) {
  calls->count += 1;
  stamp(calls);
  /* A count of 0 may come with any datatype, MPI_DATATYPE_NULL included. */
  if (!in_mpi || count <= 0) return;
  int size = 0;
  if (PMPI_Type_size((MPI_Datatype)datatype, &size) == MPI_SUCCESS && size > 0) {
    bytes->count += count * (int64_t)size;
    stamp(bytes);
  }
}

EXPORT void __perfcast_features_mpi_fortran(struct perfcast_feature_slot* calls,
                                            struct perfcast_feature_slot* bytes, int64_t count,
                                            const int32_t* datatype) {
  /* A Fortran handle means nothing before MPI_Init: count the call only. */
  MPI_Datatype c = in_mpi && count > 0 ? PMPI_Type_f2c((MPI_Fint)*datatype) : MPI_DATATYPE_NULL;
  /* A handle that names no datatype: the call counts, its bytes are unknown. */
  __perfcast_features_mpi(calls, bytes, c == MPI_DATATYPE_NULL ? 0 : count, (void*)c);
}

static void plan_stop(void);

/* After MPI_Init returned, in C or in Fortran (feature_runtime_fortran.c). */
void perfcast_features_started(void) {
  clock_gettime(CLOCK_MONOTONIC, &init_time);
  __atomic_store_n(&__perfcast_features_now_ms, 0, __ATOMIC_RELAXED);
  in_mpi = 1;
  plan_stop(); /* before the clock thread that watches the plan */
  clock_running = pthread_create(&clock_thread, NULL, clock_main, NULL) == 0;
  if (!clock_running) log_once("cannot start the epoch clock thread; every epoch will be 0");
}

EXPORT int MPI_Init(int* argc, char*** argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) perfcast_features_started();
  return rc;
}

EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) perfcast_features_started();
  return rc;
}

/* ---- the record ---- */

static void appendf(struct feature_text* t, const char* format, ...) {
  char small[128];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0 || (size_t)n >= sizeof small) {
    t->failed = 1;
    return;
  }
  feature_text_append(t, small, (size_t)n);
}

/* The command line, words joined by spaces (from /proc, which every Linux has). */
static void append_command(struct feature_text* t) {
  char buffer[8192];
  size_t n = 0;
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t got;
    while (n < sizeof buffer - 1 && (got = read(fd, buffer + n, sizeof buffer - 1 - n)) > 0) n += (size_t)got;
    close(fd);
  }
  while (n > 0 && buffer[n - 1] == '\0') --n;
  for (size_t i = 0; i < n; ++i)
    if (buffer[i] == '\0') buffer[i] = ' ';
  buffer[n] = '\0';
  feature_text_append_json(t, buffer, strlen(buffer));
}

/* The OpenMP runtime's, where the program links one: the threads a parallel
 * region without a num_threads clause starts (OMP_NUM_THREADS, else the cores
 * the rank may run on), which the analyser's `omp.threads` stands for. Weak:
 * a program without OpenMP leaves it null and the record without the field. */
extern int omp_get_max_threads(void) __attribute__((weak));

struct feature {
  const char* name;
  int kind;
  double value; /* the summed count or the maximum value; -inf: never assigned */
  double epoch;
};

static int by_name(const void* a, const void* b) {
  return strcmp(((const struct feature*)a)->name, ((const struct feature*)b)->name);
}

/* Appends the whole record with one write under an exclusive lock. A record
 * is one line ending in its checksum; a file whose last line was torn (its
 * writer killed) gets a newline first, so the torn line stays alone and the
 * reader skips it. */
static void append_record(const char* path, const struct feature_text* record) {
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    log_once("cannot open the dataset %s: %s", path, strerror(errno));
    return;
  }
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      log_once("cannot lock the dataset %s: %s", path, strerror(errno));
      close(fd);
      return;
    }
  }
  const char* data = record->data + 1; /* record->data[0] is a reserved newline */
  size_t size = record->size - 1;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    int rd = open(path, O_RDONLY | O_CLOEXEC);
    char last = '\n';
    if (rd >= 0) {
      if (pread(rd, &last, 1, st.st_size - 1) != 1) last = '\n';
      close(rd);
    }
    if (last != '\n') {
      data = record->data;
      size = record->size;
    }
  }
  while (size > 0) {
    ssize_t wrote = write(fd, data, size);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      log_once("cannot write the dataset %s: %s", path, strerror(errno));
      break;
    }
    data += wrote;
    size -= (size_t)wrote;
  }
  fdatasync(fd);
  flock(fd, LOCK_UN);
  close(fd);
}

/* Which object of the record a kind is written in. */
enum record_object { RECORD_FEATURES, RECORD_CODE, RECORD_MEASURES };
static enum record_object object_of(int kind) {
  return kind == PERFCAST_FEATURE_CODE ? RECORD_CODE : kind == PERFCAST_FEATURE_MEASURE ? RECORD_MEASURES : RECORD_FEATURES;
}
static int summed(int kind) { return kind == PERFCAST_FEATURE_COUNT || kind == PERFCAST_FEATURE_MEASURE; }

/* Appends the sorted array's features of one object, comma-separated: the
 * features as [value, epoch], the facts of the code and the measures as the
 * value alone. */
static void append_features(struct feature_text* body, const struct feature* features, size_t n,
                            enum record_object object) {
  int first = 1;
  for (size_t i = 0; i < n;) {
    /* The same name from several modules (a static inline function of a
     * header) is one feature: counts add up, values take the maximum. */
    struct feature f = features[i++];
    for (; i < n && strcmp(features[i].name, f.name) == 0; ++i) {
      if (summed(f.kind))
        f.value += features[i].value;
      else if (features[i].value > f.value)
        f.value = features[i].value;
      if (features[i].epoch > f.epoch) f.epoch = features[i].epoch;
    }
    if (object_of(f.kind) != object) continue;
    if (!isfinite(f.value)) continue; /* a value never assigned, or not a JSON number */
    if (!first) feature_text_append(body, ",", 1);
    first = 0;
    feature_text_append_json(body, f.name, strlen(f.name));
    if (object != RECORD_FEATURES)
      appendf(body, ":%.17g", f.value);
    else
      appendf(body, ":[%.17g,%.4g]", f.value, f.epoch);
  }
}

static void write_record(struct feature* features, size_t n, double time_s, int ranks, int omp_threads,
                         const char* indirect, const char* per_rank) {
  const char* path = getenv(PERFCAST_FEATURES_DATASET_VARIABLE);
  if (!path || !*path) return; /* recording was not asked for */
  qsort(features, n, sizeof *features, by_name);

  struct feature_text body = {0};
  appendf(&body, "{\"format\":\"perfcast-features\",\"version\":1,\"time_s\":%.9g,\"ranks\":%d,", time_s, ranks);
  if (omp_threads > 0) appendf(&body, "\"omp_threads\":%d,", omp_threads);
  feature_text_append(&body, "\"command\":", 10);
  append_command(&body);
  const char* label = getenv(PERFCAST_FEATURES_LABEL_VARIABLE);
  if (label && *label) {
    feature_text_append(&body, ",\"label\":", 9);
    feature_text_append_json(&body, label, strlen(label));
  }
  /* The features, then the facts of the code (kind CODE) and the measures
   * for `perfcast probe` (kind MEASURE) in their own objects. */
  feature_text_append(&body, ",\"features\":{", 13);
  append_features(&body, features, n, RECORD_FEATURES);
  feature_text_append(&body, "},\"code\":{", 10);
  append_features(&body, features, n, RECORD_CODE);
  feature_text_append(&body, "},\"measures\":{", 14);
  append_features(&body, features, n, RECORD_MEASURES);
  feature_text_append(&body, "}", 1);
  /* The targets of the calls through pointers, per site (feature_indirect.c). */
  if (indirect) {
    feature_text_append(&body, ",\"indirect_calls\":", 18);
    feature_text_append(&body, indirect, strlen(indirect));
  }
  /* Each rank's value of the features and measures that differ (gather_per_rank). */
  if (per_rank) {
    feature_text_append(&body, ",\"per_rank\":", 12);
    feature_text_append(&body, per_rank, strlen(per_rank));
  }
  feature_text_append(&body, "}", 1);

  struct feature_text line = {0};
  feature_text_append(&line, "\n{\"record\":", 11);
  if (!body.failed) feature_text_append(&line, body.data, body.size);
  appendf(&line, ",\"crc32\":\"%08x\"}\n", body.failed ? 0u : perfcast_crc32(body.data, body.size));
  if (body.failed || line.failed)
    log_once("out of memory while writing the record");
  else
    append_record(path, &line);
  free(body.data);
  free(line.data);
}

/* ---- stopping early: watching a model's features, the rank's report ---- */

/* One watched slot and what it held when last seen to change. */
struct watched {
  struct perfcast_feature_slot* slot;
  int64_t count;
  double value;
  uint32_t assigned;
  uint32_t unchanged_since_ms;
};

static struct {
  int active, reported;
  int rank, ranks;
  char report_dir[4096];
  uint32_t horizon_ms, settle_ms;
  struct watched* watched;
  size_t count;
} stop;

static int slot_changed(const struct watched* w) {
  const struct perfcast_feature_slot* s = w->slot;
  return s->count != w->count || memcmp(&s->value, &w->value, sizeof w->value) != 0 || s->assigned != w->assigned;
}

/* Reads the stop file and finds the slots of its features (every module's
 * slot of that name: an inline function may give one name in several). A
 * file that cannot be read is logged, and the run is not stopped. Runs on the
 * main thread right after MPI_Init returned, where MPI may be called. */
static void plan_stop(void) {
  const char* path = getenv(PERFCAST_FEATURES_STOP_VARIABLE);
  if (!path || !*path) return;
  FILE* in = fopen(path, "re");
  if (!in) {
    log_once("cannot read the stop file %s: %s; the run will not stop early", path, strerror(errno));
    return;
  }
  char line[4096];
  int header = 0, dir = 0;
  size_t capacity = 0;
  while (fgets(line, sizeof line, in)) {
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    unsigned long number = 0;
    if (strcmp(line, "perfcast-features-stop 1") == 0) {
      header = 1;
    } else if (strncmp(line, "report_dir ", 11) == 0 && n - 11 < sizeof stop.report_dir) {
      memcpy(stop.report_dir, line + 11, n - 11 + 1);
      dir = 1;
    } else if (sscanf(line, "horizon_ms %lu", &number) == 1) {
      stop.horizon_ms = (uint32_t)number;
    } else if (sscanf(line, "settle_ms %lu", &number) == 1) {
      stop.settle_ms = (uint32_t)number;
    } else if (strncmp(line, "feature ", 8) == 0) {
      for (struct perfcast_feature_module* m = modules; m; m = m->next)
        for (uint32_t j = 0; j < m->features; ++j) {
          if (strcmp(m->names[j], line + 8) != 0) continue;
          if (stop.count == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            struct watched* grown = realloc(stop.watched, capacity * sizeof *grown);
            if (!grown) {
              log_once("out of memory reading the stop file; the run will not stop early");
              fclose(in);
              return;
            }
            stop.watched = grown;
          }
          struct watched* w = &stop.watched[stop.count++];
          w->slot = &m->slots[j];
          w->count = w->slot->count;
          w->value = w->slot->value;
          w->assigned = w->slot->assigned;
          w->unchanged_since_ms = 0;
        }
    }
  }
  fclose(in);
  if (!header || !dir) {
    log_once("the stop file %s is not one perfcast wrote; the run will not stop early", path);
    return;
  }
  PMPI_Comm_rank(MPI_COMM_WORLD, &stop.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &stop.ranks);
  stop.active = 1;
}

static void write_report(double time_s) {
  struct feature_text body = {0};
  appendf(&body, "{\"format\":\"perfcast-features-report\",\"version\":1,\"rank\":%d,\"ranks\":%d,\"pid\":%ld,",
          stop.rank, stop.ranks, (long)getpid());
  appendf(&body, "\"time_s\":%.9g,\"features\":{", time_s);
  int first = 1;
  for (struct perfcast_feature_module* m = modules; m; m = m->next)
    for (uint32_t j = 0; j < m->features; ++j) {
      const struct perfcast_feature_slot* s = &m->slots[j];
      if (object_of(m->kinds[j]) != RECORD_FEATURES) continue; /* a fact of the code or a measure */
      int count = m->kinds[j] == PERFCAST_FEATURE_COUNT;
      double value = count ? (double)s->count : s->value;
      if ((!count && !s->assigned) || !isfinite(value)) continue;
      if (!first) feature_text_append(&body, ",", 1);
      first = 0;
      feature_text_append_json(&body, m->names[j], strlen(m->names[j]));
      appendf(&body, ":[\"%s\",%.17g,%.4f]", count ? "count" : "value", value, s->epoch_ms / 1e3);
    }
  feature_text_append(&body, "}}\n", 3);
  char path[4200], partial[4300];
  snprintf(path, sizeof path, "%s/rank-%d.features.json", stop.report_dir, stop.rank);
  snprintf(partial, sizeof partial, "%s.partial", path);
  if (body.failed) {
    log_once("out of memory writing the report; the run will not stop early");
  } else {
    /* Renamed into place whole: perfcast never reads half a report. */
    FILE* out = fopen(partial, "we");
    int ok = out && fwrite(body.data, 1, body.size, out) == body.size;
    if (out) ok = fclose(out) == 0 && ok;
    if (!ok || rename(partial, path) != 0)
      log_once("cannot write the report %s: %s; the run will not stop early", path, strerror(errno));
  }
  free(body.data);
}

/* On the clock thread, every tick: the rank reports once the run is past the
 * horizon and every watched feature has kept its value, and has not been
 * stamped, for settle_ms. The values are compared, not only the stamps: a
 * loop's header count grows without a stamp until the loop is left. No MPI
 * here: the main thread may be inside any MPI call. */
static void watch_stop(uint32_t now_ms) {
  if (!stop.active || stop.reported) return;
  int settled = now_ms >= stop.horizon_ms;
  for (size_t i = 0; i < stop.count; ++i) {
    struct watched* w = &stop.watched[i];
    if (slot_changed(w)) {
      w->count = w->slot->count;
      w->value = w->slot->value;
      w->assigned = w->slot->assigned;
      w->unchanged_since_ms = now_ms;
    }
    uint32_t stamped = w->slot->epoch_ms;
    if (now_ms - w->unchanged_since_ms < stop.settle_ms || (stamped <= now_ms && now_ms - stamped < stop.settle_ms))
      settled = 0;
  }
  if (!settled) return;
  stop.reported = 1;
  write_report(seconds_since_init());
}

/* ---- every rank's values, for `perfcast probe` ---- */

/* This rank's features and measures, one per name (merged as
 * append_features merges them: counts add up, values take the maximum),
 * sorted by name: the same names in the same order on every rank. A value
 * never assigned is -inf. Returns the number of names, or -1 without memory. */
static long merged_by_name(struct feature** out) {
  size_t n = 0;
  for (struct perfcast_feature_module* m = modules; m; m = m->next) n += m->features;
  struct feature* all = calloc(n + 1, sizeof *all);
  if (!all) return -1;
  size_t k = 0;
  for (struct perfcast_feature_module* m = modules; m; m = m->next)
    for (uint32_t j = 0; j < m->features; ++j) {
      if (object_of(m->kinds[j]) == RECORD_CODE) continue; /* the same on every rank */
      const struct perfcast_feature_slot* s = &m->slots[j];
      all[k].name = m->names[j];
      all[k].kind = m->kinds[j];
      all[k].value = summed(m->kinds[j]) ? (double)s->count : (s->assigned && isfinite(s->value) ? s->value : -INFINITY);
      ++k;
    }
  qsort(all, k, sizeof *all, by_name);
  size_t unique = 0;
  for (size_t i = 0; i < k; ++i) {
    if (unique > 0 && strcmp(all[unique - 1].name, all[i].name) == 0) {
      struct feature* f = &all[unique - 1];
      if (summed(f->kind))
        f->value += all[i].value;
      else if (all[i].value > f->value)
        f->value = all[i].value;
    } else {
      all[unique++] = all[i];
    }
  }
  *out = all;
  return (long)unique;
}

/* Collective. Where `perfcast probe` asked for them (on every rank) and the
 * job has at most PERFCAST_FEATURES_PER_RANK_MAX ranks, the JSON object
 * {"name":[rank 0's value, ...], ...} of the features and measures whose
 * value differs between the ranks (null: never assigned on that rank), on
 * rank 0 ({} where none differ); NULL on the other ranks, where not asked
 * for, or on a failure (logged). */
static char* gather_per_rank(int rank, int ranks) {
  const char* asked = getenv(PERFCAST_FEATURES_PER_RANK_VARIABLE);
  int wanted = asked && *asked && ranks <= PERFCAST_FEATURES_PER_RANK_MAX, all_want = 0;
  PMPI_Allreduce(&wanted, &all_want, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_want) return NULL;
  struct feature* mine = NULL;
  long n = merged_by_name(&mine);
  double* values = n > 0 ? malloc((size_t)n * sizeof *values) : NULL;
  double* lowest = n > 0 ? malloc((size_t)n * sizeof *lowest) : NULL;
  double* highest = n > 0 ? malloc((size_t)n * sizeof *highest) : NULL;
  /* n is the same on every rank (the shape agreed), or -1 without memory. */
  int ok = n == 0 || (n > 0 && values && lowest && highest), all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  char* out = NULL;
  if (all_ok && n == 0) {
    out = rank == 0 ? strdup("{}") : NULL;
  } else if (all_ok) {
    for (long i = 0; i < n; ++i) values[i] = mine[i].value;
    PMPI_Allreduce(values, lowest, (int)n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(values, highest, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* The differing ones, packed at the front of `lowest` (the same on every rank). */
    long k = 0;
    for (long i = 0; i < n; ++i)
      if (lowest[i] != highest[i]) {
        lowest[k] = values[i];
        highest[k++] = (double)i;
      }
    if (rank == 0 && k == 0) out = strdup("{}"); /* asked for, and none differed */
    double* gathered = rank == 0 && k > 0 ? malloc((size_t)k * (size_t)ranks * sizeof *gathered) : NULL;
    int have = rank != 0 || k == 0 || gathered, all_have = 0;
    PMPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
      log_once("out of memory gathering every rank's values; the record has none");
    } else if (k > 0) {
      PMPI_Gather(lowest, (int)k, MPI_DOUBLE, gathered, (int)k, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        struct feature_text t = {0};
        feature_text_append(&t, "{", 1);
        for (long j = 0; j < k; ++j) {
          if (j) feature_text_append(&t, ",", 1);
          const char* name = mine[(long)highest[j]].name;
          feature_text_append_json(&t, name, strlen(name));
          feature_text_append(&t, ":[", 2);
          for (int r = 0; r < ranks; ++r) {
            if (r) feature_text_append(&t, ",", 1);
            const double v = gathered[(size_t)r * (size_t)k + (size_t)j];
            if (isfinite(v))
              appendf(&t, "%.17g", v);
            else
              feature_text_append(&t, "null", 4);
          }
          feature_text_append(&t, "]", 1);
        }
        feature_text_append(&t, "}", 1);
        if (t.failed)
          log_once("out of memory writing every rank's values; the record has none");
        else
          out = t.data;
        if (t.failed) free(t.data);
      }
    }
    free(gathered);
  } else if (!all_ok) {
    log_once("out of memory gathering every rank's values; the record has none");
  }
  free(mine);
  free(values);
  free(lowest);
  free(highest);
  return out;
}

static void record(void) {
  double run_s = seconds_since_init();
  if (clock_running) {
    __atomic_store_n(&clock_stop, 1, __ATOMIC_RELAXED);
    pthread_join(clock_thread, NULL);
    clock_running = 0;
  }
  int rank = 0, ranks = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &ranks);

  long long n = 0;
  for (struct perfcast_feature_module* m = modules; m; m = m->next) n += m->features;
  /* Every rank must hold the same features in the same order to reduce them
   * element by element: the same program, the same modules registered. */
  long long shape[2] = {n, -n}, agreed[2] = {0, 0};
  PMPI_Allreduce(shape, agreed, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (agreed[0] != -agreed[1]) {
    if (rank == 0) log_once("the ranks hold different features (%lld to %lld); no record written", -agreed[1], agreed[0]);
    return;
  }

  /* Collective: gathered before the features, on every rank. */
  char* indirect = perfcast_features_gather_indirect(rank, ranks);
  char* per_rank = gather_per_rank(rank, ranks);
  size_t count = (size_t)n;
  int64_t* counts = calloc(count + 1, sizeof *counts);
  double* maxima = calloc(2 * count + 2, sizeof *maxima); /* values, epochs, run time, OpenMP threads */
  int64_t* counts_all = calloc(count + 1, sizeof *counts_all);
  double* maxima_all = calloc(2 * count + 2, sizeof *maxima_all);
  struct feature* features = calloc(count + 1, sizeof *features);
  int ok = counts && maxima && counts_all && maxima_all && features;
  /* Every rank takes part in the reductions, with or without its memory. */
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    log_once("out of memory at MPI_Finalize; no record written");
  } else {
    double run_ms = run_s * 1e3;
    size_t i = 0;
    for (struct perfcast_feature_module* m = modules; m; m = m->next)
      for (uint32_t j = 0; j < m->features; ++j, ++i) {
        const struct perfcast_feature_slot* s = &m->slots[j];
        counts[i] = summed(m->kinds[j]) ? s->count : 0;
        maxima[i] = !summed(m->kinds[j]) ? (s->assigned ? s->value : -INFINITY) : 0;
        double epoch = run_ms > 0 ? s->epoch_ms / run_ms : 0;
        maxima[count + i] = epoch > 1 ? 1 : epoch;
      }
    maxima[2 * count] = run_s;
    maxima[2 * count + 1] = omp_get_max_threads ? omp_get_max_threads() : 0;
    PMPI_Reduce(counts, counts_all, (int)count, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(maxima, maxima_all, (int)(2 * count + 2), MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      i = 0;
      for (struct perfcast_feature_module* m = modules; m; m = m->next)
        for (uint32_t j = 0; j < m->features; ++j, ++i) {
          int kind = m->kinds[j];
          features[i].name = m->names[j];
          features[i].kind = kind;
          features[i].value = summed(kind) ? (double)counts_all[i] : maxima_all[i];
          features[i].epoch = maxima_all[count + i];
        }
      write_record(features, count, maxima_all[2 * count], ranks, (int)maxima_all[2 * count + 1], indirect,
                   per_rank);
    }
  }
  free(indirect);
  free(per_rank);
  free(counts);
  free(maxima);
  free(counts_all);
  free(maxima_all);
  free(features);
}

/* Before MPI_Finalize, in C or in Fortran (feature_runtime_fortran.c). */
void perfcast_features_finishing(void) {
  if (in_mpi) record();
  in_mpi = 0;
}

EXPORT int MPI_Finalize(void) {
  perfcast_features_finishing();
  return PMPI_Finalize();
}

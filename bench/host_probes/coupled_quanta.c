// Build and run: gcc -O2 -pthread bench/host_probes/coupled_quanta.c -o /tmp/cq && /tmp/cq
// (issue 5, stop 20)
// What a bulk-synchronous step of a given length pays for the host's noise on 2 cores.
// Both cores run the ports quantum (calibrate's: a[i] = b[i] + c[i] * a[i] over 4 KiB
// arrays) of a given length, then meet at a spin barrier, over and over: per length,
//   E1      the mean stretch of one core's quanta over its fastest (what one rank pays),
//   indep   E[max of two independent draws] from the pooled stretches (what predict
//           assumes the slower of two ranks pays),
//   paired  the mean over rounds of max(core 0's, core 1's) stretch in the same round
//           (what two ranks in step really pay, barrier excluded),
//   round   the mean round time (barrier to barrier) over the fastest round.
// Lengths from 1 us (wave3d's step at 8^3 on 2 ranks) to 200 us; each for about 1.5 s.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define N 512
#define MAX_ROUNDS 2000000
static atomic_int arrived, generation, stop;
static void barrier(void) {
  int g = atomic_load(&generation);
  if (atomic_fetch_add(&arrived, 1) == 1) {
    atomic_store(&arrived, 0);
    atomic_fetch_add(&generation, 1);
  } else
    while (atomic_load(&generation) == g) {
    }
}

typedef struct {
  int cpu, passes, rounds;
  double seconds;
  double *quantum, *round;
} worker_t;

static void* work(void* p) {
  worker_t* w = p;
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(w->cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
  double a[N], b[N], c[N];
  for (int i = 0; i < N; i++) a[i] = 1.0 / (i + 1), b[i] = 0.5, c[i] = 1e-3;
  double end = now() + w->seconds, last = now();
  int n = 0;
  for (;;) {
    barrier();
    double t1 = now();
    if (n > 0) w->round[n - 1] = t1 - last;  // barrier to barrier: quantum + wait + barrier
    last = t1;
    if (atomic_load(&stop) || n == MAX_ROUNDS) break;
    double t0 = now();
    for (int k = 0; k < w->passes; k++) {
      for (int i = 0; i < N; i++) a[i] = b[i] + c[i] * a[i];
      __asm__ volatile("" ::"r"(a) : "memory");
    }
    w->quantum[n++] = now() - t0;
    if (w->cpu == 0 && now() > end) atomic_store(&stop, 1);
  }
  w->rounds = n - 1;
  return 0;
}

static int cmp(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}
static double fastest(const double* v, int n) {
  double f = v[0];
  for (int i = 1; i < n; i++) f = v[i] < f ? v[i] : f;
  return f;
}

int main(void) {
  const int passes[] = {2, 8, 32, 100, 400};  // ~1, 4, 16, 50, 200 us here
  printf("%8s %8s %7s %7s %7s %7s\n", "passes", "quantum", "E1", "indep", "paired", "round");
  for (unsigned p = 0; p < sizeof passes / sizeof *passes; p++) {
    worker_t w[2];
    pthread_t t[2];
    atomic_store(&stop, 0);
    for (int i = 0; i < 2; i++) {
      w[i] = (worker_t){.cpu = i, .passes = passes[p], .seconds = 1.5};
      w[i].quantum = malloc(sizeof(double) * MAX_ROUNDS);
      w[i].round = malloc(sizeof(double) * MAX_ROUNDS);
      pthread_create(&t[i], 0, work, &w[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    int n = w[0].rounds < w[1].rounds ? w[0].rounds : w[1].rounds;
    double f0 = fastest(w[0].quantum, n), f1 = fastest(w[1].quantum, n), fr = fastest(w[0].round, n);
    double e1 = 0, paired = 0, round = 0;
    double* pooled = malloc(sizeof(double) * 2 * n);
    for (int i = 0; i < n; i++) {
      double s0 = w[0].quantum[i] / f0, s1 = w[1].quantum[i] / f1;
      e1 += (s0 + s1) / 2;
      paired += s0 > s1 ? s0 : s1;
      round += w[0].round[i] / fr;
      pooled[2 * i] = s0, pooled[2 * i + 1] = s1;
    }
    // E[max of two independent draws] from the sorted pool: P(max <= x_k) = ((k+1)/m)^2.
    qsort(pooled, 2 * n, sizeof(double), cmp);
    double indep = 0, below = 0;
    for (int k = 0; k < 2 * n; k++) {
      double cdf = (double)(k + 1) / (2 * n);
      indep += pooled[k] * (cdf * cdf - below);
      below = cdf * cdf;
    }
    printf("%8d %6.2fus %7.3f %7.3f %7.3f %7.3f  (%d rounds, fastest round %.2f us)\n", passes[p], (f0 + f1) / 2 * 1e6,
           e1 / n, indep, paired / n, round / n, n, fr * 1e6);
    fflush(stdout);
    for (int i = 0; i < 2; i++) free(w[i].quantum), free(w[i].round);
    free(pooled);
  }
  return 0;
}

/* Why a 7-point stencil streams slower than the machine file's bandwidth for its level:
 * wave3d's leapfrog step (the same loop nest and arithmetic; gcc 12 at -O2 vectorises
 * it two-wide inside wave3d's main, and here, in a function of its own, with the cheap cost
 * model) over 3 arrays of the same total size in grids of different shapes, beside
 * the same step with every neighbour at the point itself (3 streams, the same bytes) and
 * in grids small enough for L1 / L2. Each round runs every variant once, in rotating order;
 * the medians over rounds are printed in ns per point, with each one's ratio to "app", then
 * app, in_l1, add3 and clock round by round (a host whose clock moves shows it there).
 *
 * Times are this thread's CPU time (the host is shared); a descheduled stretch does not count,
 * but a neighbour's cache use still does: compare ratios within one run.
 *
 *   cc -O2 -fvect-cost-model=cheap -o /tmp/stencil_bandwidth bench/host_probes/stencil_bandwidth.c
 *   taskset -c 0 /tmp/stencil_bandwidth 96 15      # n (wave3d's --n), rounds
 *
 * Variants (u, up, un of (nx+2)(ny+2)(nz+2) doubles each; nz = n, the row, in all):
 *   app        nx = ny = n: wave3d's shape; a plane is (n+2)^2 doubles; the arrays page-aligned
 *              (as malloc gives arrays this large: element p of each at the same address mod 4 KiB)
 *   app_skew   the same, each array 5 cache lines further into its page than the one before
 *   thin       ny = 16, nx = n*n/16: the same points, planes of 18 rows (three of them in L1)
 *   wide       ny = 8n, nx = n/8: planes 8x wave3d's (three of them beyond a 1-2 MiB L2)
 *   center     app's grid, every neighbour read at the point itself: 3 streams, the same bytes
 *   ctr_skew   center with app_skew's arrays
 *   ctr_l1     center in 2 x 2 x n points (its in-core time)
 *   add3       app's grid, un = u + up: the transfers alone, the same bytes
 *   in_l2      8 x 8 x n points: all three arrays in L2
 *   in_l1      2 x 2 x n points: all three arrays in L1 (the in-core time)
 *   l1_skew    in_l1 with app_skew's arrays
 *   clock      a chain of dependent additions, one a cycle: its "ns per point" is ns per cycle
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IDX(i, j, k) (((size_t)(i) * (size_t)(ny + 2) + (size_t)(j)) * (size_t)(nz + 2) + (size_t)(k))
#define WIDX(i, j, k) (((size_t)(i) * (size_t)(ly + 2) + (size_t)(j)) * (size_t)(lz + 2) + (size_t)(k)) /* wave3d.c's IDX */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* a shared host: not the time others take */
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* wave3d.c's leapfrog_step as it is there (gcc -O2 vectorises it two-wide, as in the app). */
static __attribute__((noinline)) void step(double *restrict un, const double *restrict u,
                                           const double *restrict up, int lx, int ly, int lz, double cx,
                                           double cy, double cz) {
  const size_t sx = (size_t)(ly + 2) * (size_t)(lz + 2);
  const size_t sy = (size_t)(lz + 2);
  int i, j, k;
  for (i = 1; i <= lx; i++)
    for (j = 1; j <= ly; j++)
      for (k = 1; k <= lz; k++) {
        size_t p = WIDX(i, j, k);
        double c2 = 2.0 * u[p];
        double lapx = u[p - sx] + u[p + sx] - c2;
        double lapy = u[p - sy] + u[p + sy] - c2;
        double lapz = u[p - 1] + u[p + 1] - c2;
        un[p] = c2 - up[p] + cx * lapx + cy * lapy + cz * lapz;
      }
}

/* The same arithmetic with every neighbour at the point itself: 3 streams. */
static __attribute__((noinline)) void step_center(double *restrict un, const double *restrict u,
                                                  const double *restrict up, int nx, int ny, int nz, double cx,
                                                  double cy, double cz) {
  int i, j, k;
  for (i = 1; i <= nx; i++)
    for (j = 1; j <= ny; j++)
      for (k = 1; k <= nz; k++) {
        size_t p = IDX(i, j, k);
        double c2 = 2.0 * u[p];
        double lapx = u[p] + u[p] - c2;
        double lapy = u[p] + u[p] - c2;
        double lapz = u[p] + u[p] - c2;
        un[p] = c2 - up[p] + cx * lapx + cy * lapy + cz * lapz;
      }
}

/* The transfers alone: un = u + up over the same points (STREAM's add, 24 bytes a point). */
static __attribute__((noinline)) void add3(double *restrict un, const double *restrict u,
                                           const double *restrict up, int nx, int ny, int nz) {
  int i, j, k;
  for (i = 1; i <= nx; i++)
    for (j = 1; j <= ny; j++)
      for (k = 1; k <= nz; k++) {
        size_t p = IDX(i, j, k);
        un[p] = u[p] + up[p];
      }
}

/* The clock: a chain of dependent register additions, one a cycle (ns per point = ns per cycle). */
static __attribute__((noinline)) void add_chain(double *out, long points) {
  long x = points;
  for (long q = 0; q < points; q++) __asm__ volatile("add $1, %0" : "+r"(x));
  out[0] = (double)x;
}

struct variant {
  const char *name;
  int nx, ny, nz, center, skew_lines;
  double *a[3];
  size_t len;
  double samples[64], in_order[64];
};

static void setup(struct variant *v) {
  int ny = v->ny, nz = v->nz;
  v->len = (size_t)(v->nx + 2) * (size_t)(ny + 2) * (size_t)(nz + 2);
  for (int a = 0; a < 3; a++) {
    /* page-aligned, as malloc gives arrays this large (mmap), unless skewed by a few lines each */
    size_t skew = (size_t)a * (size_t)v->skew_lines * 8;
    v->a[a] = (double *)aligned_alloc(4096, (v->len * 8 + 4095 + 8 * skew) / 4096 * 4096) + skew;
    for (size_t p = 0; p < v->len; p++) v->a[a][p] = 1e-3 * (double)(p % 97);
  }
  (void)IDX(0, 0, 0);
}

/* ns per point of one sweep set lasting at least 20 ms. */
static double time_variant(struct variant *v) {
  int ny = v->ny, nz = v->nz;
  double points = (double)v->nx * ny * nz;
  long sweeps = 1;
  for (;;) {
    double t0 = now_s();
    for (long s = 0; s < sweeps; s++) {
      double *un = v->a[(s + 2) % 3], *u = v->a[(s + 1) % 3], *up = v->a[s % 3];
      if (v->center == 3)
        add_chain(un, (long)points);
      else if (v->center == 2)
        add3(un, u, up, v->nx, ny, nz);
      else if (v->center)
        step_center(un, u, up, v->nx, ny, nz, 0.1, 0.2, 0.3);
      else
        step(un, u, up, v->nx, ny, nz, 0.1, 0.2, 0.3);
    }
    double t = now_s() - t0;
    if (t >= 0.02) return 1e9 * t / (sweeps * points);
    sweeps *= 2;
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 96, rounds = argc > 2 ? atoi(argv[2]) : 15;
  if (n < 16 || n % 8 || rounds < 1 || rounds > 64) {
    fprintf(stderr, "usage: stencil_bandwidth N ROUNDS (N a multiple of 8, >= 16; 1..64 rounds)\n");
    return 2;
  }
  struct variant v[] = {
      {"app", n, n, n, 0, 0},        {"app_skew", n, n, n, 0, 5},    {"thin", n * n / 16, 16, n, 0, 0},
      {"wide", n / 8, 8 * n, n, 0, 0}, {"center", n, n, n, 1, 0},      {"ctr_skew", n, n, n, 1, 5},
      {"ctr_l1", 2, 2, n, 1, 0},      {"add3", n, n, n, 2, 0},        {"in_l2", 8, 8, n, 0, 0},
      {"in_l1", 2, 2, n, 0, 0},       {"l1_skew", 2, 2, n, 0, 5},     {"clock", n, n, n, 3, 0},
  };
  const int nv = sizeof v / sizeof v[0];
  for (int i = 0; i < nv; i++) setup(&v[i]);
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < nv; i++) {
      struct variant *x = &v[(i + r) % nv];
      x->samples[r] = x->in_order[r] = time_variant(x);
    }
  double app = 0;
  for (int i = 0; i < nv; i++) {
    qsort(v[i].samples, rounds, sizeof(double), cmp);
    if (i == 0) app = v[i].samples[rounds / 2];
  }
  printf("n=%d rounds=%d: ns per point, median [min max] over rounds, ratio to app, GB/s at 24 B a point\n", n, rounds);
  for (int i = 0; i < nv; i++) {
    double med = v[i].samples[rounds / 2];
    printf("%-8s %5d x %5d x %4d  %3.0f MiB  %.3f [%.3f %.3f]  %.2f  %5.1f\n", v[i].name, v[i].nx, v[i].ny,
           v[i].nz, 3.0 * v[i].len * 8 / 1048576.0, med, v[i].samples[0], v[i].samples[rounds - 1], med / app,
           24.0 / med);
  }
  /* Round by round: does the in-core time follow the clock, and the transfers not? */
  const int shown[] = {0, 9, 7, 11};
  printf("round by round, ns per point (clock: ns per cycle):");
  for (int s = 0; s < 4; s++) printf(" %s", v[shown[s]].name);
  printf("\n");
  for (int r = 0; r < rounds; r++) {
    printf("%5d", r);
    for (int s = 0; s < 4; s++) printf(" %.3f", v[shown[s]].in_order[r]);
    printf("\n");
  }
  return 0;
}

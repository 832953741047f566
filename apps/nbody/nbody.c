/* nbody — gravitational N-body in the manner of GalaxSee.
 *
 * N bodies (equal masses, total mass 1, G = 1) start as a Plummer sphere in
 * Hénon units (E ~ -1/4) drawn from a seeded generator, with the centre of mass
 * at rest at the origin. Each rank owns a contiguous block of bodies; every
 * force evaluation is preceded by an MPI_Allgatherv of all positions (masses
 * are gathered once). Forces are either direct all-pairs sums with Plummer
 * softening (O(N^2/P) per rank) or a Barnes-Hut octree that every rank builds
 * from all positions. Integrators: leapfrog kick-drift-kick (one force
 * evaluation per step) or classical RK4 (four per step).
 *
 * Check: the relative drift |E_final - E_initial| / |E_initial| of the total
 * energy (kinetic + softened potential, the potential summed over all pairs,
 * distributed over ranks, MPI_Allreduce) is below a bound set per integrator
 * and force (see README.md). Rank 0 prints human lines, then one JSON line.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbody_options.h"

/* ------------------------------------------------------------------ */
/* Arguments                                                          */
/* ------------------------------------------------------------------ */

static void usage(FILE *out) {
  fprintf(out,
          "usage: nbody [options]\n"
          "  --bodies N        number of bodies (>= 2, default 1000)\n"
          "  --steps S         time steps (>= 1, default 100)\n"
          "  --dt T            time step (> 0, default 0.01; Henon units, crossing time ~2.8)\n"
          "  --softening E     Plummer softening length (> 0, default 0.05)\n"
          "  --theta A         Barnes-Hut opening angle (> 0, default 0.5)\n"
          "  --force F         direct | bh (default direct)\n"
          "  --integrator I    leapfrog | rk4 (default leapfrog)\n"
          "  --seed K          initial-condition seed (default 12345)\n"
          "  --repeats R       timed repeats of the whole run, median reported (>= 1, default 1)\n"
          "  --drift-bound B   override the energy-drift bound of the check (> 0)\n"
          "  --help            this text\n");
}

/* Default bound on |dE/E0|: a few times the drift measured at the default
 * parameters (N=1000, dt=0.01, eps=0.05, 100 steps; see README.md), so that a
 * sound run passes with a margin and a too-large dt fails. */
static double default_drift_bound(int force, int integrator) {
  if (force == FORCE_DIRECT) return integrator == INT_LEAPFROG ? 1e-4 : 1e-6;
  return 1e-3; /* Barnes-Hut: force errors from the monopole approximation dominate */
}

/* ------------------------------------------------------------------ */
/* Initial conditions: Plummer sphere (Aarseth, Henon & Wielen 1974)  */
/* ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t splitmix64(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double uniform01(void) { return (double)(splitmix64() >> 11) * (1.0 / 9007199254740992.0); }

static void isotropic(double r, double *x, double *y, double *z) {
  const double two_pi = 6.283185307179586;
  double cz = 1.0 - 2.0 * uniform01();
  double sz = sqrt(1.0 - cz * cz);
  double phi = two_pi * uniform01();
  *x = r * sz * cos(phi);
  *y = r * sz * sin(phi);
  *z = r * cz;
}

/* Every rank generates all N bodies in the same order (O(N), cheap), so the
 * initial state is bitwise the same whatever the rank count. */
static void plummer(long n, unsigned long long seed, double *pos, double *vel, double *mass) {
  rng_state = seed * 0x2545F4914F6CDD1DULL + 1ULL;
  const double length = 3.0 * 3.14159265358979323846 / 16.0; /* Plummer -> Henon units */
  const double vscale = 1.0 / sqrt(length);
  for (long i = 0; i < n; ++i) {
    double r;
    do {
      double x1 = uniform01();
      while (x1 <= 1e-10) x1 = uniform01();
      r = 1.0 / sqrt(pow(x1, -2.0 / 3.0) - 1.0);
    } while (r > 10.0);
    double q, g;
    do {
      q = uniform01();
      g = 0.1 * uniform01();
    } while (g > q * q * pow(1.0 - q * q, 3.5));
    double ve = sqrt(2.0) * pow(1.0 + r * r, -0.25);
    isotropic(r * length, &pos[3 * i], &pos[3 * i + 1], &pos[3 * i + 2]);
    isotropic(q * ve * vscale, &vel[3 * i], &vel[3 * i + 1], &vel[3 * i + 2]);
    mass[i] = 1.0 / (double)n;
  }
  /* Centre of mass at the origin, total momentum zero. */
  double cm[6] = {0, 0, 0, 0, 0, 0}, mt = 0;
  for (long i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      cm[k] += mass[i] * pos[3 * i + k];
      cm[3 + k] += mass[i] * vel[3 * i + k];
    }
    mt += mass[i];
  }
  for (long i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      pos[3 * i + k] -= cm[k] / mt;
      vel[3 * i + k] -= cm[3 + k] / mt;
    }
}

/* ------------------------------------------------------------------ */
/* Direct forces: the compute kernel                                  */
/* ------------------------------------------------------------------ */

/* acc[3*i] for the nloc bodies first..first+nloc-1, from all n bodies.
 * 19 flops + 1 sqrt per pair; the self term contributes 0 (dx = 0, eps > 0).
 * Every body's sum runs over j = 0..n-1 in order, whatever the rank count. */
static void accel_direct(int nloc, int first, int n, const double *pos, const double *mass, double eps2,
                         double *acc) {
  for (int i = 0; i < nloc; ++i) {
    double xi = pos[3 * (first + i)], yi = pos[3 * (first + i) + 1], zi = pos[3 * (first + i) + 2];
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int j = 0; j < n; ++j) {
      double dx = pos[3 * j] - xi;
      double dy = pos[3 * j + 1] - yi;
      double dz = pos[3 * j + 2] - zi;
      double r2 = dx * dx + dy * dy + dz * dz + eps2;
      double inv_r = 1.0 / sqrt(r2);
      double s = mass[j] * inv_r * inv_r * inv_r;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    acc[3 * i] = ax;
    acc[3 * i + 1] = ay;
    acc[3 * i + 2] = az;
  }
}

/* ------------------------------------------------------------------ */
/* Barnes-Hut octree, built by every rank from all positions          */
/* ------------------------------------------------------------------ */

#define BH_MAX_DEPTH 48

typedef struct {
  double cx, cy, cz, half; /* cell centre and half side */
  double m, mx, my, mz;    /* mass, centre of mass */
  int child[8];            /* -1 when absent */
  int body;                /* leaf: first body of its list; -1 for internal cells */
  int leaf;
} Node;

typedef struct {
  Node *nodes;
  int count, cap;
  int *next; /* linked list of bodies in a leaf (only at BH_MAX_DEPTH can it hold > 1) */
  long interactions; /* body-body + body-cell interactions, for the report */
} Tree;

static int tree_new_node(Tree *t, double cx, double cy, double cz, double half) {
  if (t->count == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 1024;
    t->nodes = (Node *)realloc(t->nodes, (size_t)t->cap * sizeof(Node));
    if (!t->nodes) {
      fprintf(stderr, "nbody: out of memory for the octree\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  Node *c = &t->nodes[t->count];
  c->cx = cx;
  c->cy = cy;
  c->cz = cz;
  c->half = half;
  c->m = c->mx = c->my = c->mz = 0.0;
  for (int k = 0; k < 8; ++k) c->child[k] = -1;
  c->body = -1;
  c->leaf = 1;
  return t->count++;
}

static int octant(const Node *c, const double *p) {
  return (p[0] >= c->cx ? 1 : 0) | (p[1] >= c->cy ? 2 : 0) | (p[2] >= c->cz ? 4 : 0);
}

static int tree_child(Tree *t, int node, int oct) {
  int ch = t->nodes[node].child[oct];
  if (ch >= 0) return ch;
  double h = 0.5 * t->nodes[node].half;
  double cx = t->nodes[node].cx + ((oct & 1) ? h : -h);
  double cy = t->nodes[node].cy + ((oct & 2) ? h : -h);
  double cz = t->nodes[node].cz + ((oct & 4) ? h : -h);
  ch = tree_new_node(t, cx, cy, cz, h); /* may move t->nodes */
  t->nodes[node].child[oct] = ch;
  return ch;
}

static void tree_insert(Tree *t, const double *pos, int b) {
  int node = 0, depth = 0;
  for (;;) {
    Node *c = &t->nodes[node];
    if (c->leaf) {
      if (c->body < 0) {
        c->body = b;
        t->next[b] = -1;
        return;
      }
      if (depth >= BH_MAX_DEPTH) { /* coincident bodies: keep them together */
        t->next[b] = c->body;
        c->body = b;
        return;
      }
      /* Split: move the resident body one level down, then descend with b. */
      int old = c->body;
      c->leaf = 0;
      c->body = -1;
      int ch = tree_child(t, node, octant(&t->nodes[node], &pos[3 * old]));
      t->nodes[ch].body = old;
      t->next[old] = -1;
      continue;
    }
    node = tree_child(t, node, octant(c, &pos[3 * b]));
    ++depth;
  }
}

static void tree_moments(Tree *t, int node, const double *pos, const double *mass) {
  double m = 0, mx = 0, my = 0, mz = 0;
  if (t->nodes[node].leaf) {
    for (int b = t->nodes[node].body; b >= 0; b = t->next[b]) {
      m += mass[b];
      mx += mass[b] * pos[3 * b];
      my += mass[b] * pos[3 * b + 1];
      mz += mass[b] * pos[3 * b + 2];
    }
  } else {
    for (int k = 0; k < 8; ++k) {
      int ch = t->nodes[node].child[k];
      if (ch < 0) continue;
      tree_moments(t, ch, pos, mass);
      const Node *c = &t->nodes[ch];
      m += c->m;
      mx += c->mx * c->m;
      my += c->my * c->m;
      mz += c->mz * c->m;
    }
  }
  Node *c = &t->nodes[node];
  c->m = m;
  c->mx = m > 0 ? mx / m : c->cx;
  c->my = m > 0 ? my / m : c->cy;
  c->mz = m > 0 ? mz / m : c->cz;
}

static void tree_build(Tree *t, int n, const double *pos, const double *mass) {
  double lo[3] = {pos[0], pos[1], pos[2]}, hi[3] = {pos[0], pos[1], pos[2]};
  for (int i = 1; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      if (pos[3 * i + k] < lo[k]) lo[k] = pos[3 * i + k];
      if (pos[3 * i + k] > hi[k]) hi[k] = pos[3 * i + k];
    }
  double half = 0;
  for (int k = 0; k < 3; ++k)
    if (0.5 * (hi[k] - lo[k]) > half) half = 0.5 * (hi[k] - lo[k]);
  half = half * 1.0001 + 1e-12;
  t->count = 0;
  tree_new_node(t, 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]), half);
  for (int i = 0; i < n; ++i) tree_insert(t, pos, i);
  tree_moments(t, 0, pos, mass);
}

/* Force on body i from the tree: a cell is accepted as one mass at its centre
 * of mass when (side / distance) < theta and body i is not inside it. */
static void tree_accel(Tree *t, int i, const double *pos, const double *mass, double eps2, double theta2,
                       double *a) {
  int stack[8 * BH_MAX_DEPTH + 16];
  int top = 0;
  double xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
  double ax = 0, ay = 0, az = 0;
  long inter = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node *c = &t->nodes[stack[--top]];
    if (c->leaf) {
      for (int b = c->body; b >= 0; b = t->next[b]) {
        if (b == i) continue;
        double dx = pos[3 * b] - xi, dy = pos[3 * b + 1] - yi, dz = pos[3 * b + 2] - zi;
        double r2 = dx * dx + dy * dy + dz * dz + eps2;
        double inv_r = 1.0 / sqrt(r2);
        double s = mass[b] * inv_r * inv_r * inv_r;
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
        ++inter;
      }
      continue;
    }
    double dx = c->mx - xi, dy = c->my - yi, dz = c->mz - zi;
    double d2 = dx * dx + dy * dy + dz * dz;
    double side = 2.0 * c->half;
    int inside = fabs(xi - c->cx) <= c->half && fabs(yi - c->cy) <= c->half && fabs(zi - c->cz) <= c->half;
    if (!inside && side * side < theta2 * d2) {
      double r2 = d2 + eps2;
      double inv_r = 1.0 / sqrt(r2);
      double s = c->m * inv_r * inv_r * inv_r;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
      ++inter;
    } else {
      for (int k = 7; k >= 0; --k)
        if (c->child[k] >= 0) stack[top++] = c->child[k];
    }
  }
  a[0] = ax;
  a[1] = ay;
  a[2] = az;
  t->interactions += inter;
}

/* ------------------------------------------------------------------ */
/* Distributed state and one force evaluation                         */
/* ------------------------------------------------------------------ */

typedef struct {
  int n, nloc, first, ranks;
  int *counts3, *displs3; /* allgatherv counts/displacements in doubles (3 per body) */
  double *pos_all;        /* all positions, gathered */
  double *mass;           /* all masses, gathered once */
  Tree tree;
  long force_evals;
  long gathers;
} World;

/* Gathers the local positions xloc (3*nloc) into pos_all, then computes the
 * accelerations of the local bodies. */
static void evaluate(World *w, const Params *p, const double *xloc, double *acc) {
  MPI_Allgatherv(xloc, 3 * w->nloc, MPI_DOUBLE, w->pos_all, w->counts3, w->displs3, MPI_DOUBLE, MPI_COMM_WORLD);
  ++w->gathers;
  double eps2 = p->softening * p->softening;
  if (p->force == FORCE_DIRECT) {
    accel_direct(w->nloc, w->first, w->n, w->pos_all, w->mass, eps2, acc);
  } else {
    tree_build(&w->tree, w->n, w->pos_all, w->mass);
    double theta2 = p->theta * p->theta;
    for (int i = 0; i < w->nloc; ++i) tree_accel(&w->tree, w->first + i, w->pos_all, w->mass, eps2, theta2, &acc[3 * i]);
  }
  ++w->force_evals;
}

/* Total energy, exact: kinetic of the local bodies plus the softened potential
 * -m_i m_j / sqrt(r^2 + eps^2) over all pairs (each rank sums its bodies against
 * all others, halved), reduced with MPI_Allreduce. Positions must be gathered. */
static void energy(const World *w, const Params *p, const double *vloc, double *e_kin, double *e_pot) {
  double eps2 = p->softening * p->softening;
  double local[2] = {0.0, 0.0};
  for (int i = 0; i < w->nloc; ++i) {
    int gi = w->first + i;
    double v2 = vloc[3 * i] * vloc[3 * i] + vloc[3 * i + 1] * vloc[3 * i + 1] + vloc[3 * i + 2] * vloc[3 * i + 2];
    local[0] += 0.5 * w->mass[gi] * v2;
    double xi = w->pos_all[3 * gi], yi = w->pos_all[3 * gi + 1], zi = w->pos_all[3 * gi + 2];
    double phi = 0.0;
    for (int j = 0; j < w->n; ++j) {
      if (j == gi) continue;
      double dx = w->pos_all[3 * j] - xi, dy = w->pos_all[3 * j + 1] - yi, dz = w->pos_all[3 * j + 2] - zi;
      phi -= w->mass[j] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
    }
    local[1] += 0.5 * w->mass[gi] * phi;
  }
  double global[2];
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *e_kin = global[0];
  *e_pot = global[1];
}

/* Runs all steps from (x, v); on return pos_all holds the final positions. */
static void integrate(World *w, const Params *p, double *x, double *v, double *scratch) {
  int m3 = 3 * w->nloc;
  double dt = p->dt;
  double *a = scratch;
  if (p->integrator == INT_LEAPFROG) {
    evaluate(w, p, x, a);
    for (long s = 0; s < p->steps; ++s) {
      for (int k = 0; k < m3; ++k) v[k] += 0.5 * dt * a[k];
      for (int k = 0; k < m3; ++k) x[k] += dt * v[k];
      evaluate(w, p, x, a);
      for (int k = 0; k < m3; ++k) v[k] += 0.5 * dt * a[k];
    }
  } else {
    double *k1 = scratch, *k2 = scratch + m3, *k3 = scratch + 2 * m3, *k4 = scratch + 3 * m3;
    double *xs = scratch + 4 * m3;
    for (long s = 0; s < p->steps; ++s) {
      /* k1 = a(x); x'-derivatives are v, v + dt/2 k1, v + dt/2 k2, v + dt k3 */
      evaluate(w, p, x, k1);
      for (int k = 0; k < m3; ++k) xs[k] = x[k] + 0.5 * dt * v[k];
      evaluate(w, p, xs, k2);
      for (int k = 0; k < m3; ++k) xs[k] = x[k] + 0.5 * dt * (v[k] + 0.5 * dt * k1[k]);
      evaluate(w, p, xs, k3);
      for (int k = 0; k < m3; ++k) xs[k] = x[k] + dt * (v[k] + 0.5 * dt * k2[k]);
      evaluate(w, p, xs, k4);
      for (int k = 0; k < m3; ++k) {
        double v1 = v[k], v2 = v[k] + 0.5 * dt * k1[k], v3 = v[k] + 0.5 * dt * k2[k], v4 = v[k] + dt * k3[k];
        x[k] += dt / 6.0 * (v1 + 2.0 * v2 + 2.0 * v3 + v4);
        v[k] += dt / 6.0 * (k1[k] + 2.0 * k2[k] + 2.0 * k3[k] + k4[k]);
      }
    }
    /* Final positions for the energy. */
    MPI_Allgatherv(x, m3, MPI_DOUBLE, w->pos_all, w->counts3, w->displs3, MPI_DOUBLE, MPI_COMM_WORLD);
    ++w->gathers;
  }
}

/* FNV-1a over the bytes of the n final positions: equal across rank counts
 * when the trajectories are bitwise equal. */
static uint64_t positions_hash(const double *pos, int n) {
  const unsigned char *b = (const unsigned char *)pos;
  uint64_t h = 1469598103934665603ULL;
  for (size_t k = 0; k < (size_t)3 * n * sizeof(double); ++k) h = (h ^ b[k]) * 1099511628211ULL;
  return h;
}

/* One JSON member ,"name":value; non-finite values (a blown-up run) as null. */
static void json_num(const char *name, double value) {
  if (isfinite(value)) printf(",\"%s\":%.17g", name, value);
  else printf(",\"%s\":null", name);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  Params p;
  int parsed = nbody_parse_args("nbody", argc, argv, rank, 0, &p);
  if (parsed == 2) {
    if (rank == 0) usage(stdout);
    MPI_Finalize();
    return 0;
  }
  if (parsed == 0) {
    MPI_Finalize();
    return 2;
  }
  double bound = p.drift_bound > 0 ? p.drift_bound : default_drift_bound(p.force, p.integrator);

  /* Contiguous blocks, the first n % ranks ranks one body more. */
  World w;
  memset(&w, 0, sizeof w);
  w.n = (int)p.bodies;
  w.ranks = ranks;
  w.counts3 = (int *)malloc((size_t)ranks * sizeof(int));
  w.displs3 = (int *)malloc((size_t)ranks * sizeof(int));
  int *counts = (int *)malloc((size_t)ranks * sizeof(int));
  int *displs = (int *)malloc((size_t)ranks * sizeof(int));
  nbody_blocks(w.n, ranks, counts, displs, w.counts3, w.displs3);
  w.nloc = counts[rank];
  w.first = displs[rank];
  w.pos_all = (double *)malloc((size_t)3 * w.n * sizeof(double));
  w.mass = (double *)malloc((size_t)w.n * sizeof(double));
  w.tree.next = (int *)malloc((size_t)w.n * sizeof(int));

  size_t m3 = (size_t)3 * (w.nloc > 0 ? w.nloc : 1);
  double *x0 = (double *)malloc(m3 * sizeof(double)), *v0 = (double *)malloc(m3 * sizeof(double));
  double *x = (double *)malloc(m3 * sizeof(double)), *v = (double *)malloc(m3 * sizeof(double));
  double *scratch = (double *)malloc(5 * m3 * sizeof(double));
  double *mloc = (double *)malloc((w.nloc > 0 ? w.nloc : 1) * sizeof(double));
  {
    double *pa = (double *)malloc((size_t)3 * w.n * sizeof(double));
    double *va = (double *)malloc((size_t)3 * w.n * sizeof(double));
    double *ma = (double *)malloc((size_t)w.n * sizeof(double));
    plummer(w.n, p.seed, pa, va, ma);
    memcpy(x0, pa + 3 * w.first, (size_t)3 * w.nloc * sizeof(double));
    memcpy(v0, va + 3 * w.first, (size_t)3 * w.nloc * sizeof(double));
    memcpy(mloc, ma + w.first, (size_t)w.nloc * sizeof(double));
    free(pa);
    free(va);
    free(ma);
  }
  /* Masses are exchanged once. */
  MPI_Allgatherv(mloc, w.nloc, MPI_DOUBLE, w.mass, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgatherv(x0, 3 * w.nloc, MPI_DOUBLE, w.pos_all, w.counts3, w.displs3, MPI_DOUBLE, MPI_COMM_WORLD);
  double ek0, ep0;
  energy(&w, &p, v0, &ek0, &ep0);
  double e0 = ek0 + ep0;

  if (rank == 0) {
    printf("nbody: %d bodies, %d ranks (%d..%d bodies each), %ld steps of dt=%g, softening %g\n", w.n, ranks,
           counts[ranks - 1], counts[0], p.steps, p.dt, p.softening);
    printf("nbody: force %s, integrator %s, seed %llu, %d repeat(s)\n", p.force == FORCE_DIRECT ? "direct" : "bh",
           p.integrator == INT_LEAPFROG ? "leapfrog" : "rk4", p.seed, p.repeats);
    if (p.force == FORCE_BH) printf("nbody: Barnes-Hut opening angle theta=%g\n", p.theta);
    printf("nbody: initial energy %.15g (kinetic %.15g, potential %.15g)\n", e0, ek0, ep0);
    fflush(stdout);
  }

  double *times = (double *)malloc((size_t)p.repeats * sizeof(double));
  long evals_per_run = 0, gathers_per_run = 0, inter_per_run = 0;
  for (int r = 0; r < p.repeats; ++r) {
    memcpy(x, x0, (size_t)3 * w.nloc * sizeof(double));
    memcpy(v, v0, (size_t)3 * w.nloc * sizeof(double));
    w.force_evals = w.gathers = 0;
    w.tree.interactions = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* the timed region starts: apps/README.md */
    double t0 = MPI_Wtime();
    integrate(&w, &p, x, v, scratch);
    double t_local = MPI_Wtime() - t0, t_max;
    MPI_Pcontrol(0); /* and ends */
    MPI_Allreduce(&t_local, &t_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times[r] = t_max;
    evals_per_run = w.force_evals;
    gathers_per_run = w.gathers;
    inter_per_run = w.tree.interactions;
    if (rank == 0) {
      printf("nbody: repeat %d: %.6f s\n", r + 1, t_max);
      fflush(stdout);
    }
  }

  double ek1, ep1;
  energy(&w, &p, v, &ek1, &ep1);
  double e1 = ek1 + ep1;
  double drift = fabs((e1 - e0) / e0);
  long inter_total = 0;
  MPI_Reduce(&inter_per_run, &inter_total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  /* Total momentum (should stay ~0): informational. */
  double ploc[3] = {0, 0, 0}, ptot[3];
  for (int i = 0; i < w.nloc; ++i)
    for (int k = 0; k < 3; ++k) ploc[k] += w.mass[w.first + i] * v[3 * i + k];
  MPI_Allreduce(ploc, ptot, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double pmag = sqrt(ptot[0] * ptot[0] + ptot[1] * ptot[1] + ptot[2] * ptot[2]);

  int passed = isfinite(e1) && isfinite(drift) && drift < bound;

  if (rank == 0) {
    double *sorted = (double *)malloc((size_t)p.repeats * sizeof(double));
    memcpy(sorted, times, (size_t)p.repeats * sizeof(double));
    qsort(sorted, (size_t)p.repeats, sizeof(double), cmp_double);
    double median = (p.repeats % 2) ? sorted[p.repeats / 2]
                                    : 0.5 * (sorted[p.repeats / 2 - 1] + sorted[p.repeats / 2]);
    free(sorted);
    long interactions = p.force == FORCE_DIRECT ? (long)evals_per_run * w.n * w.n : inter_total;
    printf("nbody: final energy %.15g (kinetic %.15g, potential %.15g)\n", e1, ek1, ep1);
    printf("nbody: relative energy drift %.3e (bound %.1e), |momentum| %.3e\n", drift, bound, pmag);
    printf("nbody: %ld force evaluations, %ld position allgathervs of %ld bytes, %ld interactions per run\n",
           evals_per_run, gathers_per_run, (long)w.n * 24L, interactions);
    printf("nbody: median time %.6f s; check %s\n", median, passed ? "passed" : "failed");
    printf("{\"app\":\"nbody\",\"ranks\":%d,\"bodies\":%d,\"steps\":%ld,\"dt\":%.17g,\"softening\":%.17g,"
           "\"theta\":%.17g,\"force\":\"%s\",\"integrator\":\"%s\",\"seed\":%llu,\"repeats\":%d,"
           "\"bodies_per_rank_min\":%d,\"bodies_per_rank_max\":%d,"
           "\"force_evaluations\":%ld,\"allgathervs\":%ld,\"allgatherv_bytes\":%ld,\"interactions\":%ld",
           ranks, w.n, p.steps, p.dt, p.softening, p.theta, p.force == FORCE_DIRECT ? "direct" : "bh",
           p.integrator == INT_LEAPFROG ? "leapfrog" : "rk4", p.seed, p.repeats, counts[ranks - 1], counts[0],
           evals_per_run, gathers_per_run, (long)w.n * 24L, interactions);
    json_num("energy_initial", e0);
    json_num("energy_final", e1);
    json_num("kinetic_final", ek1);
    json_num("potential_final", ep1);
    json_num("energy_drift", drift);
    json_num("drift_bound", bound);
    json_num("momentum_final", pmag);
    printf(",\"positions_hash\":\"%016llx\"", (unsigned long long)positions_hash(w.pos_all, w.n));
    json_num("time_s", median);
    printf(",\"times_s\":[");
    for (int r = 0; r < p.repeats; ++r) printf("%s%.17g", r ? "," : "", times[r]);
    printf("],\"check\":\"%s\"}\n", passed ? "passed" : "failed");
    fflush(stdout);
    if (!passed)
      fprintf(stderr, "nbody: check failed: relative energy drift %.3e is not below %.1e\n", drift, bound);
  }

  free(times);
  free(x0);
  free(v0);
  free(x);
  free(v);
  free(scratch);
  free(mloc);
  free(counts);
  free(displs);
  free(w.counts3);
  free(w.displs3);
  free(w.pos_all);
  free(w.mass);
  free(w.tree.next);
  free(w.tree.nodes);
  MPI_Finalize();
  return passed ? 0 : 1;
}

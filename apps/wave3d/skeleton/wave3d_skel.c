/* wave3d_skel — the BSIM skeleton of apps/wave3d/wave3d.c (Susukita et al.,
 * SC2008): the same options, process grid (MPI_Dims_create, MPI_Cart_create,
 * MPI_Cart_shift), block decomposition, halo messages (same peers, tags and
 * sizes), collectives and timed loop as the real app, with
 *   - the compute of a step (pack, unpack, leapfrog update) replaced by
 *     BSIM_Add_time(wave3d_calc_time(lx*ly*lz)), a model fitted to wave3d's
 *     own per-step compute time on this machine (wave3d_calc_time.h, written by
 *     `perfcast fit --emit c`; see README.md and bench/wave3d_skeleton.py),
 *     or, with --compute-model MODEL (wave3d.model.json), by the work of the
 *     model's halo_exchange and leapfrog_step functions for this rank's
 *     block (BSIM_Add_model_work), priced by the engine as `perfcast
 *     predict` prices them: on any machine file, size and rank count;
 *   - MPI calls whose data steer nothing, or that carry grid data, replaced by
 *     LMPI_* twins with NULL buffers (halo exchange, the checksum and check
 *     reductions);
 *   - calls whose values are printed or decide the exit code kept as real
 *     MPI_* (the slowest-rank times, the halo counts, the exit flag).
 * Initialisation and the final check compute nothing here: they lie outside the
 * timed step loop, which is what the JSON line reports (same keys as wave3d's
 * timing and halo fields; "check":"skeleton").
 *
 * Build: perfcast cc -O2 -I<dir of wave3d_calc_time.h> wave3d_skel.c -o wave3d_skel
 * Run:   perfcast simulate --machine M --np 8 -- ./wave3d_skel --n 64 --steps 20
 *        (add --compute-model apps/wave3d/wave3d.model.json for the model's compute)
 *
 * No writable globals: all ranks share one process (docs/skeletons.md). */

#include <bsim.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../wave3d_options.h"
#include "wave3d_calc_time.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: wave3d_skel [options]   (the skeleton of wave3d: same options)\n"
          "  --n N          cube grid N x N x N (default 64)\n"
          "  --nx/--ny/--nz N  grid points along one axis (override --n)\n"
          "  --steps S      time steps (default 20)\n"
          "  --px/--py/--pz P  processes along one axis (default: MPI_Dims_create)\n"
          "  --repeats R    time the step loop R times, report the median (default 3)\n"
          "  --compute-model FILE  a step's compute from this program model (wave3d.model.json)\n"
          "                 instead of the fitted wave3d_calc_time\n"
          "  --help         this text\n"
          "Last stdout line (rank 0): one JSON object with the simulated times.\n");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of(const double *v, int n) {
  double *sorted = malloc((size_t)n * sizeof(double));
  double median;
  if (sorted == NULL) return 0;
  memcpy(sorted, v, (size_t)n * sizeof(double));
  qsort(sorted, (size_t)n, sizeof(double), cmp_double);
  median = (n % 2) ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  free(sorted);
  return median;
}

static void print_array(const char *key, const double *v, int n) {
  int r;
  printf(",\"%s\":[", key);
  for (r = 0; r < n; r++) printf("%s%.9g", r ? "," : "", v[r]);
  printf("]");
}

enum { XLO, XHI, YLO, YHI, ZLO, ZHI };

/* Takes the skeleton's own option --compute-model FILE out of argv (the rest
 * are wave3d's, parsed by wave3d_options.h); returns FILE or NULL. */
static const char *take_compute_model(int *argc, char **argv) {
  const char *file = NULL;
  int i, out = 1;
  for (i = 1; i < *argc; i++) {
    if (strcmp(argv[i], "--compute-model") == 0 && i + 1 < *argc) {
      file = argv[++i];
      continue;
    }
    argv[out++] = argv[i];
  }
  *argc = out;
  return file;
}

int main(int argc, char **argv) {
  struct wave3d_options opt;
  int rank, size, bad, f, r;
  int dims[3], periods[3] = {0, 0, 0}, coords[3];
  int nbr[6], count[6];
  int x0, y0, z0, lx, ly, lz;
  double step_calc_s;
  double *times, *calcs, *mpis;
  MPI_Comm cart;
  const char *compute_model;
  BSIM_Model *model = NULL;
  /* The model's parameters a step's work depends on (perfcast model params). */
  const char *model_names[6] = {"nx", "ny", "nz", "px", "py", "pz"};
  double model_values[6];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  compute_model = take_compute_model(&argc, argv);
  if (wave3d_parse_args("wave3d_skel", argc, argv, &opt, rank)) {
    MPI_Finalize();
    return 2;
  }
  if (opt.help) {
    if (rank == 0) usage(stdout);
    MPI_Finalize();
    return 0;
  }

  if (wave3d_check_fixed_dims("wave3d_skel", &opt, size, rank)) {
    MPI_Finalize();
    return 2;
  }
  dims[0] = opt.px;
  dims[1] = opt.py;
  dims[2] = opt.pz;
  MPI_Dims_create(size, 3, dims);
  if (wave3d_check_dims("wave3d_skel", dims, &opt, rank)) {
    MPI_Finalize();
    return 2;
  }
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  MPI_Cart_shift(cart, 0, 1, &nbr[XLO], &nbr[XHI]);
  MPI_Cart_shift(cart, 1, 1, &nbr[YLO], &nbr[YHI]);
  MPI_Cart_shift(cart, 2, 1, &nbr[ZLO], &nbr[ZHI]);

  wave3d_block(opt.nx, dims[0], coords[0], &x0, &lx);
  wave3d_block(opt.ny, dims[1], coords[1], &y0, &ly);
  wave3d_block(opt.nz, dims[2], coords[2], &z0, &lz);
  (void)x0;
  (void)y0;
  (void)z0;
  count[XLO] = count[XHI] = ly * lz;
  count[YLO] = count[YHI] = lx * lz;
  count[ZLO] = count[ZHI] = lx * ly;

  /* The compute of one step on this rank's block: the fitted model, or the
   * program model's work (its rank coordinates follow MPI_Cart_create's
   * row-major order without reordering, as here). */
  step_calc_s = wave3d_calc_time((double)lx * (double)ly * (double)lz);
  if (step_calc_s < 0) step_calc_s = 0;
  if (compute_model != NULL) {
    model = BSIM_Model_load(compute_model);
    model_values[0] = opt.nx;
    model_values[1] = opt.ny;
    model_values[2] = opt.nz;
    model_values[3] = dims[0];
    model_values[4] = dims[1];
    model_values[5] = dims[2];
    step_calc_s = 0; /* priced by the engine as the burst runs: not known here */
  }

  times = calloc((size_t)opt.repeats, sizeof(double));
  calcs = calloc((size_t)opt.repeats, sizeof(double));
  mpis = calloc((size_t)opt.repeats, sizeof(double));
  if (times == NULL || calcs == NULL || mpis == NULL) {
    fprintf(stderr, "wave3d_skel: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  for (r = 0; r < opt.repeats; r++) {
    double t0, t1, t[3], tmax[3], mpi_s = 0;
    int s;
    MPI_Barrier(cart);
    MPI_Pcontrol(1); /* the app's timed region, marked as it marks it */
    t0 = MPI_Wtime();
    for (s = 0; s < opt.steps; s++) {
      MPI_Request req[12];
      double tm = MPI_Wtime();
      for (f = 0; f < 6; f++) LMPI_Irecv(NULL, count[f], MPI_DOUBLE, nbr[f], f ^ 1, cart, &req[f]);
      for (f = 0; f < 6; f++) LMPI_Isend(NULL, count[f], MPI_DOUBLE, nbr[f], f, cart, &req[6 + f]);
      LMPI_Waitall(12, req, MPI_STATUSES_IGNORE);
      mpi_s += MPI_Wtime() - tm;
      /* pack (before the sends in wave3d), unpack and the update: one burst */
      if (model != NULL) {
        BSIM_Add_model_work(model, "halo_exchange", 6, model_names, model_values);
        BSIM_Add_model_work(model, "leapfrog_step", 6, model_names, model_values);
      } else {
        BSIM_Add_time(step_calc_s);
      }
    }
    t1 = MPI_Wtime();
    MPI_Pcontrol(0);
    t[0] = t1 - t0;
    t[1] = t[0] - mpi_s;
    t[2] = mpi_s;
    MPI_Allreduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, cart);
    times[r] = tmax[0];
    calcs[r] = tmax[1];
    mpis[r] = tmax[2];
    /* wave3d's checksum of the final state: no state here */
    LMPI_Allreduce(NULL, NULL, 1, MPI_UINT64_T, MPI_SUM, cart);
  }

  /* wave3d's check: max errors and the norm */
  LMPI_Allreduce(NULL, NULL, 3, MPI_DOUBLE, MPI_MAX, cart);
  LMPI_Allreduce(NULL, NULL, 1, MPI_DOUBLE, MPI_SUM, cart);

  long long my_msgs = 0, my_bytes = 0, tot[2] = {0, 0}, mx[2] = {0, 0};
  for (f = 0; f < 6; f++)
    if (nbr[f] != MPI_PROC_NULL) {
      my_msgs++;
      my_bytes += (long long)count[f] * (long long)sizeof(double);
    }
  {
    long long mine[2] = {my_msgs, my_bytes};
    MPI_Reduce(mine, tot, 2, MPI_LONG_LONG, MPI_SUM, 0, cart);
    MPI_Reduce(mine, mx, 2, MPI_LONG_LONG, MPI_MAX, 0, cart);
  }

  bad = 0;
  if (rank == 0) {
    if (model != NULL)
      printf("wave3d_skel: %d x %d x %d grid on %d ranks (%d x %d x %d process grid), %d steps, "
             "compute from the program model %s\n",
             opt.nx, opt.ny, opt.nz, size, dims[0], dims[1], dims[2], opt.steps, compute_model);
    else
      printf("wave3d_skel: %d x %d x %d grid on %d ranks (%d x %d x %d process grid), %d steps, "
             "compute %.6g s per step on rank 0\n",
             opt.nx, opt.ny, opt.nz, size, dims[0], dims[1], dims[2], opt.steps, step_calc_s);
    printf("{\"app\":\"wave3d_skel\",\"ranks\":%d,\"px\":%d,\"py\":%d,\"pz\":%d,\"nx\":%d,\"ny\":%d,\"nz\":%d,"
           "\"steps\":%d,\"repeats\":%d,\"time_s\":%.9g",
           size, dims[0], dims[1], dims[2], opt.nx, opt.ny, opt.nz, opt.steps, opt.repeats,
           median_of(times, opt.repeats));
    print_array("times_s", times, opt.repeats);
    printf(",\"halo_msgs_per_step\":%lld,\"halo_bytes_per_step\":%lld,"
           "\"max_rank_halo_msgs_per_step\":%lld,\"max_rank_halo_bytes_per_step\":%lld",
           tot[0], tot[1], mx[0], mx[1]);
    printf(",\"calc_s\":%.9g,\"mpi_s\":%.9g", median_of(calcs, opt.repeats), median_of(mpis, opt.repeats));
    print_array("calcs_s", calcs, opt.repeats);
    print_array("mpis_s", mpis, opt.repeats);
    if (model != NULL)
      printf(",\"compute\":\"model\",\"check\":\"skeleton\"}\n");
    else
      printf(",\"step_calc_s\":%.9g,\"check\":\"skeleton\"}\n", step_calc_s);
    fflush(stdout);
  }
  /* wave3d's exit flag */
  MPI_Bcast(&bad, 1, MPI_INT, 0, cart);

  free(times);
  free(calcs);
  free(mpis);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return bad ? 1 : 0;
}

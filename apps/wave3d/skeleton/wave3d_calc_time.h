/* Written by bench/wave3d_skeleton.py: perfcast fit bench/results/2026-11-24-wave3d-skeleton/wave3d_calc.csv --x points --model linear --origin --emit c --name wave3d_calc_time
 * wave3d's compute per step (pack, unpack, update) against the points of a rank's block. */
/* wave3d_calc_time(points): predicted seconds of the kernel, for BSIM_Add_time(wave3d_calc_time(points)).
 * Fitted by `perfcast fit` to bench/results/2026-11-24-wave3d-skeleton/wave3d_calc.csv: 4 sizes, points 5.53e+04 .. 2.986e+06, 20 runs (median per size).
 * Model: linear, through 0: 1.709 ns/points.
 * Error at the measured sizes: max 41.6 %, rms 29.6 %; R^2 0.768023.
 * Error leave-one-out (the error to expect at a size not measured): mean 36.4 %, max 45.9 %.
 * Outside points 5.53e+04 .. 2.986e+06 it extrapolates. */
static double wave3d_calc_time(double points) {
  return 1.7085312290547598e-09 * points;
}

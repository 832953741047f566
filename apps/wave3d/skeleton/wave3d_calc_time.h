/* Written by bench/wave3d_skeleton.py: perfcast fit bench/results/wave3d_calc.csv --x points --model linear --origin --emit c --name wave3d_calc_time
 * wave3d's compute per step (pack, unpack, update) against the points of a rank's block. */
/* wave3d_calc_time(points): predicted seconds of the kernel, for BSIM_Add_time(wave3d_calc_time(points)).
 * Fitted by `perfcast fit` to bench/results/wave3d_calc.csv: 4 sizes, points 5.53e+04 .. 2.986e+06, 20 runs (median per size).
 * Model: linear, through 0: 1.254 ns/points.
 * Error at the measured sizes: max 34.7 %, rms 26.3 %; R^2 0.787870.
 * Error leave-one-out (the error to expect at a size not measured): mean 33.1 %, max 39.2 %.
 * Outside points 5.53e+04 .. 2.986e+06 it extrapolates. */
static double wave3d_calc_time(double points) {
  return 1.2543399899321691e-09 * points;
}

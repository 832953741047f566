// Minima and maxima: a compare-and-select of the same two values and fmin/fmax
// are one flop each (minsd/maxsd); a select between other values is none.
#include <math.h>

double clamp_sum(const double* a, const double* b, long n) {
  double s = 0.0, lo = 1e300;
  for (long i = 0; i < n; i++) {
    double x = a[i] > b[i] ? a[i] : b[i];   // max: 1
    lo = fmin(lo, x);                       // min: 1
    s += a[i] > 0.0 ? x : b[i];             // select of other values: 0; add: 1
  }
  return s + lo;                            // 1
}

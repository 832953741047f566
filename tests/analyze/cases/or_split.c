/* `if (a || b)` whose later test has arithmetic of its own: both values are
   computed before the test, so the optimised IR holds the two tests as one
   `select i1 (d >= 0), true, (l > 0)`, and x86 code tests d first and
   computes l (5 flops) only where d < 0. In or_cheap the later test needs
   only its compare, and the backend tests both at once (not vectorised, so
   that the test stays a branch). */
void or_split(const double* a, const double* b, const double* c, double* out, int n) {
  for (int i = 0; i < n; ++i) {
    double d = b[i] * c[i] + a[i];
    double l = (a[i] * a[i] - c[i] * b[i]) / (a[i] + b[i] + c[i]);
    if (d >= 0.0 || l > 0.0) /* marker: or */
      out[i] = 0.0;
    else
      out[i] = (l * l + d * d) / (l - d) * a[i] + b[i];
  }
}

void or_cheap(const double* a, const double* b, const double* c, double* out, int n) {
#pragma clang loop vectorize(disable) interleave(disable)
  for (int i = 0; i < n; ++i) {
    double d = b[i] * c[i] + a[i];
    if (d >= 0.0 || c[i] > 0.0) continue;
    out[i] = d * d * a[i];
  }
}

double a[1000], b[1000], c[1000], out[1000];

int main(void) {
  or_split(a, b, c, out, 1000);
  or_cheap(a, b, c, out, 1000);
  return 0;
}

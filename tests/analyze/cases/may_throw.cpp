// A loop whose call may throw, the exception caught in the loop: the catch
// side runs only when the callee throws, which a normal run never does. Each
// iteration: 1 flop in the callee, 1 for the sum; the catch's 2 never.
#include <stdexcept>

__attribute__((noinline)) double checked(double x) {
  if (x < 0) throw std::domain_error("negative");
  return x * 2.0;
}

__attribute__((noinline)) double sum_checked(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    try {
      s += checked(v[i]);
    } catch (const std::domain_error &) {
      s = s * 0.5 - 1.0;
    }
  }
  return s;
}

int main() { return 0; }

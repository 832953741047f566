// An if/else on a condition the model cannot state (a pointer tested for
// null), each side calling a function that may throw, with a local whose
// destructor runs on the way out: both calls are `invoke`s whose unwind edges
// leave the function, so the join after the if/else does not post-dominate
// the test, yet a run reaches it by one side or the other. The loop after it:
// 2 flops an element (a multiply, an add), whichever side ran.
#include <stdexcept>

struct Buffer {
  double *data = nullptr;
  __attribute__((noinline)) ~Buffer() { delete[] data; }
};

__attribute__((noinline)) double *read_from(const char *file, long n) {
  if (!file[0]) throw std::invalid_argument("no file name");
  return new double[n];
}

__attribute__((noinline)) double *generate(long n) {
  if (n > (1L << 40)) throw std::length_error("too large");
  return new double[n];
}

__attribute__((noinline)) double sum_after_setup(const char *file, long n) {
  Buffer buffer;
  if (file)
    buffer.data = read_from(file, n);
  else
    buffer.data = generate(n);
  double s = 0;
  for (long i = 0; i < n; i++) s += 2.0 * static_cast<double>(i);
  return s;
}

int main(int argc, char **argv) { return sum_after_setup(argc > 1 ? argv[1] : nullptr, argc * 1000L) > 0; }

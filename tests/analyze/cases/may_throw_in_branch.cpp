// Work after an `if` whose one side calls a function that may throw, with a
// local whose destructor runs on the way out (so the call is an `invoke`):
// the unwind edge leaves the function, so the join after the `if` does not
// post-dominate it, and it is reached on every path a run takes. The loop
// after it: 2 flops an element (a multiply, an add), whatever n and big are.
#include <stdexcept>

struct Buffer {
  double *data = nullptr;
  __attribute__((noinline)) ~Buffer() { delete[] data; }
};

__attribute__((noinline)) double *allocate(long n) {
  if (n > (1L << 40)) throw std::length_error("too large");
  return new double[n];
}

__attribute__((noinline)) double sum_after_allocation(long n, long big) {
  Buffer buffer;
  if (n > big) buffer.data = allocate(n);
  double s = 0;
  for (long i = 0; i < n; i++) s += 2.0 * static_cast<double>(i);
  return s;
}

int main(int argc, char **) { return sum_after_allocation(argc * 1000L, 10) > 0; }

// Work after an `if` on a count the model cannot state (failures found in the
// data) whose side prints with iostreams, as a benchmark's driver reports a
// failed check before its timed loop: each `<<` is a call that may throw (an
// `invoke`, a local vector being alive) and checks its stream's facet (a branch
// to a throw). No condition of the paths to the join can be stated, yet every
// path a run takes reaches it: the loop after it counts in full, 2 flops an
// element (a multiply, an add), whatever the failures.
#include <iostream>
#include <vector>

__attribute__((noinline)) int count_failures(const long *codes, long n) {
  int failures = 0;
  for (long i = 0; i < n; i++) failures += codes[i] != 0;
  return failures;
}

__attribute__((noinline)) double timed_phase(long n, const long *codes, int rank) {
  std::vector<double> times(4, 0.0);
  int failures = count_failures(codes, n);
  if (failures && rank == 0) std::cout << "Failed " << failures << " checks." << std::endl;
  for (long i = 0; i < n; i++) times[i % 4] += 2.0 * static_cast<double>(i);
  return times[0] + times[3];
}

int main(int argc, char **) {
  std::vector<long> codes(argc * 1000L, 0);
  return timed_phase(static_cast<long>(codes.size()), codes.data(), argc - 1) > 0;
}

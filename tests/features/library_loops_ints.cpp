// The ints' instances of library_loops.cpp's std::fill and std::copy, in a
// module of their own: n / 4 elements a call.
#include <algorithm>

__attribute__((noinline)) void fill_and_copy_ints(int *a, int *b, const int *len) {
  std::fill(a, a + len[3], 7);
  std::copy(a, a + len[3], b);
}

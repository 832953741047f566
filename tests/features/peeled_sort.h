// The ordering of peeled_test.c's pairs by point, in a header of its own as
// std::sort is PENNANT's: an insertion sort, inlined into the function that
// links the corners, whose code then comes from two files.
#ifndef PEELED_SORT_H
#define PEELED_SORT_H

struct pair {
  int first, second;
};

static inline void order_pairs(struct pair* pairs, int n) {
  for (int i = 1; i < n; ++i) {
    struct pair moved = pairs[i];
    int j = i - 1;
    while (j >= 0 && pairs[j].first > moved.first) {
      pairs[j + 1] = pairs[j];
      --j;
    }
    pairs[j + 1] = moved;
  }
}

#endif

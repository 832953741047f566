/* A triangular nest: the inner trip count is the outer index, n(n-1)/2 products. */
#include <stddef.h>
__attribute__((noinline)) void outer(int n, double *restrict c, const double *restrict a,
                                     const double *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) c[(size_t)i * n + j] = a[i] * b[j];
}

int main(void) { return 0; }

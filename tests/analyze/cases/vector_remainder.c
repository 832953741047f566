/* A loop the vectoriser splits into a vector body and scalar remainders: the
 * counts stay exact for every n (2 single-precision flops per element). */
#include <stddef.h>
__attribute__((noinline)) void saxpy(int n, float a, const float *restrict x, float *restrict y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

int main(void) { return 0; }

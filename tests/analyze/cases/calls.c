/* Calls compose: work(m) costs m multiplications; driver(n) calls it with 2n and n + 3. */
#include <stddef.h>
__attribute__((noinline)) void work(int m, double *restrict v) {
  for (int i = 0; i < m; i++) v[i] = v[i] * 3.0;
}

__attribute__((noinline)) void driver(int n, double *restrict v) {
  work(2 * n, v);
  work(n + 3, v);
}

int main(void) { return 0; }

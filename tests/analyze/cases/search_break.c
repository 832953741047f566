/* A search that breaks out of the outer loop after an inner loop: the exit
 * the break leads to belongs to no loop, and another loop follows it. The
 * scan runs until the target is found (a data-dependent count); the loop
 * after it always runs: 2 * n flops. */
#include <stddef.h>

__attribute__((noinline)) double search_then_scale(int n, int m, const int *keys, int target, double *v) {
  int found = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      if (keys[i * m + j] == target) found = 1;
    if (found) break;
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * 2.0;
  return s + found;
}

/* The variant whose break target is a loop of its own: the loop after the
 * search is reached from the break and from the search's normal end. */
__attribute__((noinline)) int search_in_steps(int steps, int n, const int *keys, int target, double *v) {
  int where = -1;
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++)
        if (keys[i * n + j] == target) where = i;
      if (where >= 0) break;
    }
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5;
  }
  return where;
}

/* The search inside a data-dependent branch, the break after a loop that
 * runs once, on the path that breaks: the branch's side holds that loop,
 * which is in no loop around the branch (it cannot reach the search's header
 * again). At most m flops a call. */
__attribute__((noinline)) int search_marked(int n, int m, const int *mark, const int *keys, int target, double *v) {
  int where = -1;
  for (int i = 0; i < n; i++) {
    if (mark[i] > 0) {
      for (int j = 0; j < m; j++)
        if (keys[i * m + j] == target) where = i;
      if (where >= 0) {
        for (int k = 0; k < m; k++) v[k] = v[k] * 0.5;
        break;
      }
    }
  }
  return where;
}

int main(void) { return 0; }

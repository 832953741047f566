/* A loop whose only exit sits behind a test in its body: the code guarding
 * the exit runs on some passes only, though every way out of the function
 * goes through it. A flop every pass, 2 on the passes that see a 10. */
double f(const int* c) {
  double w = 0;
  int i = 0;
  while (1) {
    w += 0.5;
    if (c[i++] == 10) {
      w = w * 0.25 + 1;
      if (c[i] < 0) break;
    }
  }
  return w;
}

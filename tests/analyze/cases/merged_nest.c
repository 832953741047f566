/* A nest the optimiser merges into one loop: the inner `do ... while` leaves
 * straight to the outer loop's test, so both share a header, a pass for each
 * character read. The outer loop's work (2 flops a line) is then guarded, a
 * pass going round without it, and the merged loop names a line of the
 * inner one, whose iterations are its passes. */
#include <stdio.h>

double count_lines(FILE* f) {
  double w = 0;
  int ch;
  do {
    do {
      ch = fgetc(f);
      w += 0.5;
    } while (ch != '\n' && ch != EOF);
    w = w * 0.25 + 1.0;
  } while (ch != EOF);
  return w;
}

// An inlined callee's loop merged into its caller's loop, and one kept apart.
// skip_line's `do ... while` leaves to its `\r` test and returns: inlined
// into `while (skip_line(f, w) != EOF)`, its exit leads straight back to the
// caller's test, and the optimiser gives both loops one header; with work of
// the caller's own after the call, the two stay a nest.
#include <cstdio>

static int skip_line(FILE* stream, double& weight) {
  int ch;
  bool finished;
  do {
    ch = fgetc(stream);
    weight += 0.5;
    finished = (ch == EOF) || (ch == '\n') || (ch == '\r');
  } while (!finished);
  if (ch == '\r') {
    const int next = fgetc(stream);
    if (next == '\n' || next == EOF)
      ch = next;
    else
      ungetc(next, stream);
  }
  return ch;
}

extern "C" double to_end(FILE* stream) {
  double weight = 0;
  while (skip_line(stream, weight) != EOF) {
  }
  return weight;
}

extern "C" double scaled_lines(FILE* stream) {
  double weight = 0;
  while (!feof(stream)) {
    skip_line(stream, weight);
    weight = weight * 0.25 + 1.0;
  }
  return weight;
}

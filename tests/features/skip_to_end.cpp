// A callee's loop merged into its caller's: `skip_line`, a `do ... while`
// inlined into `while (skip_line(f) != EOF)`, leaves straight back to the
// caller's test, so the two share a header: one loop in the optimised code,
// a pass for each character read, not one a line, whose caller's work (the
// line's 2 flops) runs on the passes that end a line.
// `skip_to_end FILE`: FILE skipped line by line to its end, a flop a
// character read (each line's end and the file's too) and 2 a line.
#include <mpi.h>

#include <cstdio>

// Skips to the end of the line at the stream's position; 1 flop a character.
static int skip_line(FILE* stream, double& weight) {
  int ch;
  bool finished;
  do {
    ch = fgetc(stream);
    weight += 0.5;
    finished = (ch == EOF) || (ch == '\n') || (ch == '\r');
  } while (!finished);
  if (ch == '\r') {  // a `\r\n` ends the line too
    const int next = fgetc(stream);
    if (next == '\n' || next == EOF)
      ch = next;
    else
      ungetc(next, stream);
  }
  return ch;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  FILE* stream = argc > 1 ? std::fopen(argv[1], "r") : nullptr;
  if (!stream) MPI_Abort(MPI_COMM_WORLD, 1);
  double weight = 0;
  while (skip_line(stream, weight) != EOF) weight = weight * 0.25 + 1.0;  // marker: lines
  std::fclose(stream);
  double total = 0;
  MPI_Reduce(&weight, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return total < 0;
}

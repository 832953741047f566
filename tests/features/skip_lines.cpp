// A C++ `do ... while (!finished)` whose flag the optimiser folds into the
// loop's one branch (a switch on the character read) at the line that
// computes it, dropping the loop's own location: the analyser then names the
// loop at that line, the probes at its `do`. The trips are data: a line's
// characters and its end.
// `skip_lines FILE`: FILE's first two lines skipped, a flop a character
// read (each line's end too).
#include <mpi.h>

#include <cstdio>

// Skips to the end of the line at the stream's position; 1 flop a character.
static int skip_line(FILE* stream, double& weight) {
  int ch;
  bool finished;
  do {  // marker: do
    ch = fgetc(stream);
    weight += 0.5;
    finished = (ch == EOF) || (ch == '\n') || (ch == '\r');  // marker: finished
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
  skip_line(stream, weight);  // a header's two lines
  skip_line(stream, weight);
  std::fclose(stream);
  double total = 0;
  MPI_Reduce(&weight, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return total < 0;
}

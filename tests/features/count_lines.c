/* A nest the optimiser merges into one loop: the inner `do ... while` reads a
 * line and leaves straight to the outer loop's test, so both share a header,
 * a pass for each character read, not one a line.
 * `count_lines FILE`: FILE read to its end, a flop a character read (each
 * line's end and the file's too) and 2 a line (the file's end too). */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) static double count_lines(FILE* f) {
  double w = 0;
  int ch;
  do {  /* marker: lines */
    do {  /* marker: characters */
      ch = fgetc(f);
      w += 0.5;
    } while (ch != '\n' && ch != EOF);
    w = w * 0.25 + 1.0;
  } while (ch != EOF);
  return w;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  FILE* f = argc > 1 ? fopen(argv[1], "r") : NULL;
  if (!f) MPI_Abort(MPI_COMM_WORLD, 1);
  double w = count_lines(f);
  fclose(f);
  double total = 0;
  MPI_Reduce(&w, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return total < 0;
}

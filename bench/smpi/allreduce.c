/* ITERS allreduces (MPI_SUM) of BYTES/8 doubles, for comparing simulators:
 * built with `perfcast cc` and with `smpicc`, unchanged. The sum is checked,
 * so both simulators are seen to move the data.
 *
 *   allreduce BYTES ITERS     prints one JSON line on rank 0; time_s is the
 *                             latest rank's MPI_Wtime at the end of the loop
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int bytes = argc > 1 ? atoi(argv[1]) : 8;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int count = bytes / 8 > 0 ? bytes / 8 : 1;
  double* in = malloc(sizeof(double) * (size_t)count);
  double* out = malloc(sizeof(double) * (size_t)count);
  for (int k = 0; k < count; ++k) in[k] = rank + 1;
  double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i) MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start, latest = 0;
  int wrong = iters > 0 && (out[0] != size * (size + 1) / 2.0 || out[count - 1] != out[0]);
  MPI_Reduce(&elapsed, &latest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("{\"test\": \"allreduce\", \"ranks\": %d, \"bytes\": %d, \"iters\": %d, \"time_s\": %.12g, \"sum_ok\": %s}\n",
           size, count * 8, iters, latest, wrong ? "false" : "true");
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}

/* A neighbour exchange whose peers a file lists: every rank receives from
 * each of its n sources and sends to each of its n destinations, k times.
 * The code does not compute them, so each call's peer is a parameter with a
 * default. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int k = atoi(argv[1]), n = atoi(argv[2]);
  int *from = malloc(n * sizeof(int)), *to = malloc(n * sizeof(int));
  double in[16], out[16] = {0};
  FILE *list = fopen(argv[3], "r");
  for (int i = 0; i < n; i++) (void)fscanf(list, "%d %d", &from[i], &to[i]);
  MPI_Init(&argc, &argv);
  for (int s = 0; s < k; s++)
    for (int i = 0; i < n; i++) {
      MPI_Request request;
      MPI_Irecv(in, 16, MPI_DOUBLE, from[i], 0, MPI_COMM_WORLD, &request);
      MPI_Send(out, 16, MPI_DOUBLE, to[i], 0, MPI_COMM_WORLD);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
  MPI_Finalize();
  return 0;
}

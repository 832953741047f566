// A loop over a chunk's zones that also indexes a chunk-local array by the
// offset `z0 = z - zfirst` (PENNANT's QCS::setVelDiff): the optimiser peels
// one iteration of the remainder after the vector loop, and the values z and
// z0 take there are moments of the loop, not quantities a user knows. The
// trips are zlast - zfirst, each call's chunk of n / 4 zones: 4 calls of 3
// flops a zone and one outside the loop.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void scale(const int *mapsz, int sfirst, int slast, int nums, int numz,
                                     const double *zss, const double *tmp, double *zdu, double q1, double q2) {
  int zfirst = mapsz[sfirst];
  int zlast = (slast < nums ? mapsz[slast] : numz);
  for (int z = zfirst; z < zlast; ++z) {
    int z0 = z - zfirst;
    zdu[z] = q1 * zss[z] + 2. * q2 * tmp[z0];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  int *mapsz = malloc(sizeof(int) * (n + 1));
  double *zss = malloc(sizeof(double) * n), *tmp = malloc(sizeof(double) * n), *zdu = malloc(sizeof(double) * n);
  for (int i = 0; i <= n; i++) mapsz[i] = i;
  for (int i = 0; i < n; i++) zss[i] = tmp[i] = 0.5;
  for (int c = 0; c < 4; c++) scale(mapsz, c * n / 4, (c + 1) * n / 4, n, n, zss, tmp, zdu, 0.5, 0.25);
  printf("%g\n", zdu[n / 2]);
  free(zdu);
  free(tmp);
  free(zss);
  free(mapsz);
  MPI_Finalize();
  return 0;
}

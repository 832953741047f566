/* A 3-d halo exchange on a Cartesian grid, as apps/wave3d does it: the
 * neighbours come from MPI_Cart_shift into a local array, and a loop over the
 * six faces (unrolled by the optimiser) posts one receive and one send per
 * face, with the neighbour read from the array.
 *
 * -DGIVEN_DIMS: the dims are set from the command line before
 *   MPI_Dims_create (0 leaves a dimension to MPI), so the analysis cannot
 *   prove that MPI chose every one.
 * -DPERIODIC: the grid wraps around along x and z. */
#include <mpi.h>
#include <stdlib.h>

enum { XLO, XHI, YLO, YHI, ZLO, ZHI };

#ifdef PERIODIC
#define WRAP 1
#else
#define WRAP 0
#endif

static void exchange(double **rbuf, double **sbuf, int m, const int *nbr, MPI_Comm comm) {
  MPI_Request req[12];
  for (int f = 0; f < 6; f++) MPI_Irecv(rbuf[f], m, MPI_DOUBLE, nbr[f], f ^ 1, comm, &req[f]);
  for (int f = 0; f < 6; f++) MPI_Isend(sbuf[f], m, MPI_DOUBLE, nbr[f], f, comm, &req[6 + f]);
  MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
  int rank, size;
  int dims[3] = {0, 0, 0}, periods[3] = {WRAP, 0, WRAP}, nbr[6];
  double *sbuf[6], *rbuf[6];
  MPI_Comm cart;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = atoi(argv[1]), m = atoi(argv[2]);
#ifdef GIVEN_DIMS
  for (int d = 0; d < 3; d++) dims[d] = argc > 3 + d ? atoi(argv[3 + d]) : 0;
#endif
  MPI_Dims_create(size, 3, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_shift(cart, 0, 1, &nbr[XLO], &nbr[XHI]);
  MPI_Cart_shift(cart, 1, 1, &nbr[YLO], &nbr[YHI]);
  MPI_Cart_shift(cart, 2, 1, &nbr[ZLO], &nbr[ZHI]);
  for (int f = 0; f < 6; f++) {
    sbuf[f] = calloc((size_t)m, sizeof(double));
    rbuf[f] = calloc((size_t)m, sizeof(double));
  }
  for (int s = 0; s < steps; s++) exchange(rbuf, sbuf, m, nbr, cart);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}

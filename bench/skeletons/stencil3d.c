/* A 3D-stencil skeleton in the BSIM way: per step a compute burst, a 6-neighbour
 * halo exchange (isend/irecv/waitall of HALO bytes per face, periodic), and an
 * 8-byte allreduce every 10 steps. The same source builds for perfcast
 * (`perfcast cc stencil3d.c -o stencil3d.so`) and for SimGrid's SMPI
 * (`smpicc -DSTENCIL_SMPI stencil3d.c -o stencil3d`), so both simulators run the
 * very same call sequence.
 *
 *   stencil3d [STEPS] [HALO_BYTES] [COMPUTE_S]     defaults: 100 65536 0.001
 */
#include <stdio.h>
#include <stdlib.h>

#if defined(STENCIL_SMPI)
#include <mpi.h>
#include <smpi/smpi.h>
/* SMPI: compute advances the simulated clock; messages still need buffers, taken
 * from SMPI's shared allocation so thousands of ranks fit in memory. */
static void compute(double seconds) { smpi_execute(seconds); }
#define HALO_SEND_BUF(face) send_buf
#define HALO_RECV_BUF(face) recv_buf
#define ISEND MPI_Isend
#define IRECV MPI_Irecv
#define ALLREDUCE MPI_Allreduce
#else
#include <bsim.h>
static void compute(double seconds) { BSIM_Add_time(seconds); }
/* perfcast: LMPI_* move no data, so no buffers at all. */
#define HALO_SEND_BUF(face) NULL
#define HALO_RECV_BUF(face) NULL
#define ISEND LMPI_Isend
#define IRECV LMPI_Irecv
#define ALLREDUCE LMPI_Allreduce
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  int halo = argc > 2 ? atoi(argv[2]) : 65536;
  double compute_s = argc > 3 ? atof(argv[3]) : 0.001;
  if (steps < 0 || halo < 0 || compute_s < 0) {
    fprintf(stderr, "stencil3d: usage: stencil3d [STEPS>=0] [HALO_BYTES>=0] [COMPUTE_S>=0]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
  MPI_Dims_create(size, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  int neighbours[6];
  for (int d = 0; d < 3; ++d) MPI_Cart_shift(cart, d, 1, &neighbours[2 * d], &neighbours[2 * d + 1]);

#if defined(STENCIL_SMPI)
  char* send_buf = SMPI_SHARED_MALLOC((size_t)halo);
  char* recv_buf = SMPI_SHARED_MALLOC((size_t)halo);
#endif
  double start = MPI_Wtime();
  for (int step = 0; step < steps; ++step) {
    compute(compute_s);
    MPI_Request requests[12];
    for (int face = 0; face < 6; ++face) {
      IRECV(HALO_RECV_BUF(face), halo, MPI_BYTE, neighbours[face], face ^ 1, cart, &requests[face]);
      ISEND(HALO_SEND_BUF(face), halo, MPI_BYTE, neighbours[face], face, cart, &requests[6 + face]);
    }
    MPI_Waitall(12, requests, MPI_STATUSES_IGNORE);
    if (step % 10 == 9) {
      double local = compute_s, global = 0;
      ALLREDUCE(&local, &global, 1, MPI_DOUBLE, MPI_SUM, cart);
    }
  }
  double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("{\"ranks\": %d, \"steps\": %d, \"halo_bytes\": %d, \"time_s\": %.9g}\n", size, steps, halo, elapsed);
#if defined(STENCIL_SMPI)
  SMPI_SHARED_FREE(send_buf);
  SMPI_SHARED_FREE(recv_buf);
#endif
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}

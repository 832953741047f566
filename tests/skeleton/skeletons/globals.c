/* Writable globals every rank would share: the runtime names each one. */
#include <mpi.h>

int iteration_count = 5;
double halo_buffer[128];
static int calls_so_far;
const double pi = 3.14159; /* read-only: not reported */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ++calls_so_far;
  iteration_count += (int)halo_buffer[0] + (int)pi;
  MPI_Finalize();
  return calls_so_far > 0 ? 0 : 1;
}

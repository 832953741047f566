/* Uses a communicator made by a call the tracer does not follow
 * (MPI_Comm_create_group): the tracer must stop recording, report it, and leave the
 * run intact. Exits 0 only when every MPI call worked. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm copy;
  MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 0, &copy);
  int value = 1, total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, copy);
  MPI_Barrier(MPI_COMM_WORLD);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_free(&copy);
  MPI_Group_free(&world_group);
  MPI_Finalize();
  return total == size ? 0 : 1;
}

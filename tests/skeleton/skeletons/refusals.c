/* Calls that refuse an argument with an error code instead of ending the run: a
 * null request or array of counts, for MPI_* and LMPI_* alike. Each check returns
 * its own exit code (0: every call refused as it should, and nothing was sent). */
#include <bsim.h>
#include <mpi.h>
#include <stddef.h>

#define CHECK(cond, code)       \
  do {                          \
    if (!(cond)) return (code); \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int value = 0, flag = 0;
  CHECK(MPI_Isend(&value, 1, MPI_INT, 0, 0, MPI_COMM_SELF, NULL) == MPI_ERR_REQUEST, 10);
  CHECK(LMPI_Isend(NULL, 1, MPI_INT, 0, 0, MPI_COMM_SELF, NULL) == MPI_ERR_REQUEST, 11);
  CHECK(MPI_Issend(&value, 1, MPI_INT, 0, 0, MPI_COMM_SELF, NULL) == MPI_ERR_REQUEST, 12);
  CHECK(LMPI_Issend(NULL, 1, MPI_INT, 0, 0, MPI_COMM_SELF, NULL) == MPI_ERR_REQUEST, 13);
  CHECK(MPI_Irecv(&value, 1, MPI_INT, 0, 0, MPI_COMM_SELF, NULL) == MPI_ERR_REQUEST, 14);
  CHECK(LMPI_Irecv(NULL, 1, MPI_INT, 0, 0, MPI_COMM_SELF, NULL) == MPI_ERR_REQUEST, 15);
  CHECK(MPI_Wait(NULL, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST, 16);
  CHECK(LMPI_Wait(NULL, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST, 17);
  CHECK(MPI_Test(NULL, &flag, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST, 18);
  CHECK(LMPI_Test(NULL, &flag, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST, 19);
  CHECK(MPI_Reduce_scatter(&value, &value, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_ARG, 20);
  CHECK(LMPI_Reduce_scatter(NULL, NULL, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_ARG, 21);
  /* Empty request lists are no error, and complete at once. */
  CHECK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE) == MPI_SUCCESS, 22);
  CHECK(LMPI_Testall(0, NULL, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag == 1, 23);
  MPI_Finalize();
  return 0;
}

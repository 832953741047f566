/* MPI_Probe + MPI_Get_count + MPI_Recv of a size the receiver does not know in
 * advance, as real codes do: rank 0 learns each message's source, tag and length
 * from the probe's status. Every rank r > 0 sends (r * 37) % 50 + 1 doubles with
 * tag 100 + r, then rank 1 one message above the eager threshold. Half the senders
 * are late (the probe waits for the message), half early (the message waits for
 * the probe). Exit codes name the failed check (0: all right). */
#include <bsim.h>
#include <mpi.h>
#include <stdlib.h>

#define CHECK(cond, code) \
  do {                    \
    if (!(cond)) return (code); \
  } while (0)

static int length_of(int rank) { return (rank * 37) % 50 + 1; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int big = 20000; /* 160 kB: rendezvous on every bundled machine */
  if (rank == 0) {
    BSIM_Add_time(5e-3); /* between the early and the late senders */
    for (int k = 1; k < n; ++k) {
      MPI_Status st;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < n, 50);
      CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE, 51);
      int count = -1;
      MPI_Get_count(&st, MPI_DOUBLE, &count);
      CHECK(count == length_of(st.MPI_SOURCE), 52);
      double* buf = malloc(sizeof(double) * (size_t)count);
      int source = st.MPI_SOURCE;
      MPI_Recv(buf, count, MPI_DOUBLE, source, st.MPI_TAG, MPI_COMM_WORLD, &st);
      CHECK(st.MPI_SOURCE == source, 53);
      for (int i = 0; i < count; ++i) CHECK(buf[i] == source * 1000.0 + i, 54);
      free(buf);
    }
    if (n > 1) {
      /* A given source and tag, a rendezvous-sized message (sent once rank 1
       * hears that the loop above is over, so that it cannot match there). */
      int go = 1;
      MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
      MPI_Status st;
      MPI_Probe(1, 7, MPI_COMM_WORLD, &st);
      int count = -1;
      MPI_Get_count(&st, MPI_DOUBLE, &count);
      CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 7 && count == big, 55);
      double* buf = malloc(sizeof(double) * (size_t)count);
      MPI_Recv(buf, count, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(buf[0] == 0 && buf[big - 1] == big - 1, 56);
      free(buf);
    }
  } else {
    if (rank % 2 == 0) BSIM_Add_time(1e-2 + 1e-4 * rank); /* late: after rank 0's probes began */
    int len = length_of(rank);
    double* buf = malloc(sizeof(double) * (size_t)len);
    for (int i = 0; i < len; ++i) buf[i] = rank * 1000.0 + i;
    MPI_Send(buf, len, MPI_DOUBLE, 0, 100 + rank, MPI_COMM_WORLD);
    free(buf);
    if (rank == 1) {
      int go = 0;
      MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(go == 1, 57);
      double* large = malloc(sizeof(double) * big);
      for (int i = 0; i < big; ++i) large[i] = i;
      MPI_Send(large, big, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
      free(large);
    }
  }
  MPI_Finalize();
  return 0;
}

/* A traced MPI program that states what it did: after each MPI call it writes
 * the event that call should record, in perfcast's text form, to
 * DIR/expected-rank-N.txt (DIR = argv[1]). What it writes comes from the
 * program's own knowledge (a message's sender read from its payload, the
 * index MPI_Waitany returned), never from a status the tracer could fill.
 * Runs on 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static FILE* expected;
#define EXPECT(...)                     \
  do {                                  \
    fprintf(expected, __VA_ARGS__);     \
    fputc('\n', expected);              \
  } while (0)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Known compute between two calls: the trace must show a burst at least this long. */
static void busy_wait(double seconds) {
  double start = now_s();
  volatile double x = 1;
  while (now_s() - start < seconds) x = x * 1.0000001 + 1e-9;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size != 4) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n 4 calls DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/expected-rank-%d.txt", argv[1], rank);
  expected = fopen(path, "w");
  if (!expected) MPI_Abort(MPI_COMM_WORLD, 3);
  EXPECT("init");
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  busy_wait(0.02);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT("barrier");
  /* The timed region's marks: the level is the event's tag. */
  MPI_Pcontrol(1);
  EXPECT("pcontrol tag=1");

  /* Any-source receives with MPI_STATUS_IGNORE: the sender is in the payload. The tag keeps
   the ring's later messages from matching. */
  if (rank == 0) {
    for (int i = 1; i < size; ++i) {
      int who = -1;
      MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT("recv peer=%d tag=10 bytes=4", who);
    }
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
    EXPECT("send peer=0 tag=10 bytes=4");
  }

  /* Nonblocking ring; the receive is any-source, completed with MPI_STATUSES_IGNORE. */
  double out[100] = {0}, in[100];
  MPI_Request requests[2];
  MPI_Irecv(in, 100, MPI_DOUBLE, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &requests[0]);
  EXPECT("irecv peer=%d tag=20 bytes=800 req=1", left);
  MPI_Isend(out, 100, MPI_DOUBLE, right, 20, MPI_COMM_WORLD, &requests[1]);
  EXPECT("isend peer=%d tag=20 bytes=800 req=2", right);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  EXPECT("waitall req=1,2");

  /* Waitany completes one of the two: the program says which. */
  MPI_Irecv(in, 10, MPI_DOUBLE, left, 21, MPI_COMM_WORLD, &requests[0]);
  EXPECT("irecv peer=%d tag=21 bytes=80 req=3", left);
  MPI_Isend(out, 10, MPI_DOUBLE, right, 21, MPI_COMM_WORLD, &requests[1]);
  EXPECT("isend peer=%d tag=21 bytes=80 req=4", right);
  int index = -1;
  MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
  EXPECT("waitany req=%d", index == 0 ? 3 : 4);
  MPI_Wait(&requests[1 - index], MPI_STATUS_IGNORE);
  EXPECT("wait req=%d", index == 0 ? 4 : 3);

  /* Polling with MPI_Test: a test that found nothing completes nothing. */
  MPI_Irecv(in, 1, MPI_DOUBLE, left, 22, MPI_COMM_WORLD, &requests[0]);
  EXPECT("irecv peer=%d tag=22 bytes=8 req=5", left);
  MPI_Send(out, 1, MPI_DOUBLE, right, 22, MPI_COMM_WORLD);
  EXPECT("send peer=%d tag=22 bytes=8", right);
  for (int flag = 0; !flag;) {
    MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
    if (flag)
      EXPECT("test req=5");
    else
      EXPECT("test");
  }

  int three[3] = {rank, rank, rank}, got[3];
  MPI_Sendrecv(three, 3, MPI_INT, right, 30, got, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  EXPECT("sendrecv peer=%d source=%d tag=30 tag2=30 bytes=12 bytes2=12", right, got[0]);

  /* Collectives, MPI_IN_PLACE among them. */
  double ten[10] = {0};
  MPI_Bcast(ten, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT("bcast bytes=80 bytes2=80");
  double two[2] = {1, 2}, sum2[2];
  MPI_Allreduce(two, sum2, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT("allreduce bytes=16 bytes2=16");
  int counts3[3] = {1, 2, 3};
  MPI_Allreduce(MPI_IN_PLACE, counts3, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT("allreduce bytes=12 bytes2=12");
  int pair[2] = {rank, rank}, gathered[8];
  if (rank == 0) {
    MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, gathered, 2, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT("gather bytes=8 bytes2=%d", 8 * size);
  } else {
    MPI_Gather(pair, 2, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT("gather bytes=8");
  }
  MPI_Reduce(two, sum2, 2, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD);
  if (rank == 1)
    EXPECT("reduce root=1 bytes=16 bytes2=16");
  else
    EXPECT("reduce root=1 bytes=16");
  int send_counts[4], send_displs[4], recv_counts[4], recv_displs[4];
  int send_ints[10], recv_ints[16];
  for (int j = 0, at = 0; j < size; ++j) {
    send_counts[j] = j + 1;
    send_displs[j] = at;
    at += j + 1;
    recv_counts[j] = rank + 1;
    recv_displs[j] = j * (rank + 1);
    for (int k = 0; k < j + 1; ++k) send_ints[send_displs[j] + k] = rank;
  }
  MPI_Alltoallv(send_ints, send_counts, send_displs, MPI_INT, recv_ints, recv_counts, recv_displs, MPI_INT,
                MPI_COMM_WORLD);
  int r4 = 4 * (rank + 1);
  EXPECT("alltoallv bytes=40 bytes2=%d counts=4,8,12,16 counts2=%d,%d,%d,%d", 4 * r4, r4, r4, r4, r4);

  /* A derived datatype moves its data bytes: 4 blocks of 2 doubles. */
  MPI_Datatype columns;
  MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &columns);
  MPI_Type_commit(&columns);
  double grid[20] = {0}, packed[8];
  MPI_Sendrecv(grid, 1, columns, right, 40, packed, 8, MPI_DOUBLE, left, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT("sendrecv peer=%d source=%d tag=40 tag2=40 bytes=64 bytes2=64", right, left);
  MPI_Bcast(grid, 1, columns, 0, MPI_COMM_WORLD);
  EXPECT("bcast bytes=64 bytes2=64");
  MPI_Type_free(&columns);

  /* Sub-communicators: handles 2, 3, then 4 (never reused). */
  MPI_Comm half, copy, most;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  EXPECT("comm_split color=%d key=%d new=2", rank % 2, -rank);
  MPI_Allreduce(two, sum2, 2, MPI_DOUBLE, MPI_SUM, half);
  EXPECT("allreduce comm=2 bytes=16 bytes2=16");
  MPI_Comm_dup(half, &copy);
  EXPECT("comm_dup comm=2 new=3");
  int half_rank;
  MPI_Comm_rank(copy, &half_rank);
  if (half_rank == 0) {
    int who = -1;
    MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, 50, copy, MPI_STATUS_IGNORE);
    EXPECT("recv comm=3 peer=%d tag=50 bytes=4", who);
  } else {
    MPI_Send(&half_rank, 1, MPI_INT, 0, 50, copy);
    EXPECT("send comm=3 peer=0 tag=50 bytes=4");
  }
  MPI_Comm_free(&copy);
  EXPECT("comm_free comm=3");
  MPI_Comm_free(&half);
  EXPECT("comm_free comm=2");
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &most);
  if (rank == 0) {
    EXPECT("comm_split color=undefined");
  } else {
    EXPECT("comm_split color=1 new=4");
    MPI_Barrier(most);
    EXPECT("barrier comm=4");
    MPI_Comm_free(&most);
    EXPECT("comm_free comm=4");
  }

  /* Partitions made without a color are recorded as the split that makes the
     same groups: color = the parent rank of the group's first member, key = the
     rank in it. All 4 ranks share this host's memory. Rank 0 made one
     communicator fewer above, so its handles are one lower from here. */
  int node_handle = rank == 0 ? 4 : 5;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &node);
  EXPECT("comm_split color=%d key=%d new=%d", size - 1, size - 1 - rank, node_handle);
  MPI_Group world_group, evens_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int evens[2] = {0, 2};
  MPI_Group_incl(world_group, 2, evens, &evens_group);
  MPI_Comm even;
  MPI_Comm_create(MPI_COMM_WORLD, evens_group, &even);
  if (rank % 2 == 0) {
    EXPECT("comm_split color=0 key=%d new=%d", rank / 2, node_handle + 1);
    MPI_Barrier(even);
    EXPECT("barrier comm=%d", node_handle + 1);
    MPI_Comm_free(&even);
    EXPECT("comm_free comm=%d", node_handle + 1);
  } else {
    EXPECT("comm_split color=undefined");
  }
  MPI_Group_free(&evens_group);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&node);
  EXPECT("comm_free comm=%d", node_handle);
  MPI_Pcontrol(0);
  EXPECT("pcontrol");

  MPI_Finalize();
  EXPECT("finalize");
  fclose(expected);
  return 0;
}

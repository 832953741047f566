/* Data movement of the MPI_* collectives and of the calls whose results steer
 * real codes: every check returns its own exit code (0: all data right). */
#include <bsim.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, code) \
  do {                    \
    if (!(cond)) return (code); \
  } while (0)

static void maxabs(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  double* a = (double*)in;
  double* b = (double*)inout;
  for (int i = 0; i < *len; ++i) b[i] = (a[i] < 0 ? -a[i] : a[i]) > (b[i] < 0 ? -b[i] : b[i]) ? a[i] : b[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  /* bcast */
  int params[3] = {0, 0, 0};
  if (rank == 1 % n) params[0] = 42, params[1] = 7, params[2] = -1;
  MPI_Bcast(params, 3, MPI_INT, 1 % n, MPI_COMM_WORLD);
  CHECK(params[0] == 42 && params[1] == 7 && params[2] == -1, 20);

  /* reduce with MAXLOC at root 0, and MIN on long long */
  struct { double v; int i; } in = {(double)((rank * 7) % n), rank}, out = {-1, -1};
  MPI_Reduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double best = -1; int where = -1;
    for (int r = 0; r < n; ++r) if ((double)((r * 7) % n) > best) best = (r * 7) % n, where = r;
    CHECK(out.v == best && out.i == where, 21);
  }
  long long v = 1000 - rank, lmin = 0;
  MPI_Allreduce(&v, &lmin, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  CHECK(lmin == 1000 - (n - 1), 22);

  /* in-place allreduce, user op */
  double d[2] = {rank, -2.0 * rank};
  MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(d[0] == n * (n - 1) / 2.0 && d[1] == -(double)n * (n - 1), 23);
  MPI_Op op;
  MPI_Op_create(maxabs, 1, &op);
  double x = rank == n - 1 ? -100.0 : rank, y = 0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
  CHECK(y == -100.0, 24);
  MPI_Op_free(&op);

  /* gather, gatherv, scatter, allgather(v), alltoall(v) */
  int* all = malloc(sizeof(int) * 4 * n);
  int* counts = malloc(sizeof(int) * n);
  int* displs = malloc(sizeof(int) * n);
  int mine2[2] = {rank, rank * rank};
  MPI_Gather(mine2, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) for (int r = 0; r < n; ++r) CHECK(all[2 * r] == r && all[2 * r + 1] == r * r, 25);
  int total = 0;
  for (int r = 0; r < n; ++r) counts[r] = r % 3, displs[r] = total, total += counts[r];
  int vsend[2] = {rank * 10, rank * 10 + 1};
  memset(all, 0, sizeof(int) * 4 * n);
  MPI_Allgatherv(vsend, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < counts[r]; ++k) CHECK(all[displs[r] + k] == r * 10 + k, 26);
  int piece = -1;
  for (int r = 0; r < n; ++r) all[r] = 1000 + r;
  MPI_Scatter(all, 1, MPI_INT, &piece, 1, MPI_INT, n - 1, MPI_COMM_WORLD);
  CHECK(piece == 1000 + rank, 27);
  int* sendv = malloc(sizeof(int) * n);
  int* recvv = malloc(sizeof(int) * n);
  for (int r = 0; r < n; ++r) sendv[r] = rank * 100 + r;
  MPI_Alltoall(sendv, 1, MPI_INT, recvv, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < n; ++r) CHECK(recvv[r] == r * 100 + rank, 28);
  MPI_Allgather(&rank, 1, MPI_INT, recvv, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < n; ++r) CHECK(recvv[r] == r, 29);

  /* reduce_scatter_block, scan, exscan */
  for (int r = 0; r < n; ++r) sendv[r] = r + rank;
  int rs = -1;
  MPI_Reduce_scatter_block(sendv, &rs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rs == n * rank + n * (n - 1) / 2, 30);
  int one = rank + 1, prefix = -1, eprefix = -1;
  MPI_Scan(&one, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(prefix == (rank + 1) * (rank + 2) / 2, 31);
  MPI_Exscan(&one, &eprefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank > 0) CHECK(eprefix == rank * (rank + 1) / 2, 32);

  /* comm_split: even and odd ranks, reversed order; allreduce inside */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hr, hs;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  CHECK(hs == (n + 1 - rank % 2) / 2, 33);
  int members = 0;
  for (int r = rank % 2; r < n; r += 2) members += r > rank;
  CHECK(hr == members, 34);
  int wsum = 0;
  MPI_Allreduce(&rank, &wsum, 1, MPI_INT, MPI_SUM, half);
  int expect = 0;
  for (int r = rank % 2; r < n; r += 2) expect += r;
  CHECK(wsum == expect, 35);
  MPI_Comm_free(&half);
  CHECK(half == MPI_COMM_NULL, 36);

  /* Cartesian grid and a shift exchange with sendrecv */
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(n, 2, dims);
  CHECK(dims[0] * dims[1] == n && dims[0] >= dims[1], 37);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  int coords[2], src, dst;
  MPI_Cart_coords(grid, rank, 2, coords);
  MPI_Cart_shift(grid, 0, 1, &src, &dst);
  int back;
  int c2[2] = {(coords[0] + 1) % dims[0], coords[1]};
  MPI_Cart_rank(grid, c2, &back);
  CHECK(back == dst, 38);
  int from = -1;
  MPI_Status st;
  MPI_Sendrecv(&rank, 1, MPI_INT, dst, 5, &from, 1, MPI_INT, src, 5, grid, &st);
  CHECK(from == src && st.MPI_SOURCE == src && st.MPI_TAG == 5, 39);
  MPI_Cart_shift(grid, 1, 1, &src, &dst);
  if (coords[1] == dims[1] - 1) CHECK(dst == MPI_PROC_NULL, 40);

  /* probe + get_count + any-source receive; test loop; waitany */
  if (rank == 0) {
    for (int r = 1; r < n; ++r) {
      MPI_Probe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
      int count;
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(count == st.MPI_SOURCE, 41);
      int buf[64];
      MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, 9, MPI_COMM_WORLD, &st);
      for (int k = 0; k < count; ++k) CHECK(buf[k] == st.MPI_SOURCE, 42);
    }
  } else {
    int buf[64];
    for (int k = 0; k < rank; ++k) buf[k] = rank;
    MPI_Send(buf, rank, MPI_INT, 0, 9, MPI_COMM_WORLD);
  }
  int tok = -1, flag = 0;
  MPI_Request req[2];
  MPI_Irecv(&tok, 1, MPI_INT, (rank + n - 1) % n, 11, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(&rank, 1, MPI_INT, (rank + 1) % n, 11, MPI_COMM_WORLD, &req[1]);
  int spins = 0;
  while (!flag && spins < 1000) {
    BSIM_Add_time(1e-6);
    MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
    ++spins;
  }
  CHECK(flag && tok == (rank + n - 1) % n, 43);
  int idx;
  MPI_Waitany(2, req, &idx, &st);
  CHECK(idx == 1, 44);

  /* a vector datatype: one column of a 3x3 row-major matrix */
  double m[9];
  for (int k = 0; k < 9; ++k) m[k] = rank == 0 ? k : -1;
  MPI_Datatype column;
  MPI_Type_vector(3, 1, 3, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  MPI_Bcast(&m[1], 1, column, 0, MPI_COMM_WORLD);
  CHECK(m[1] == 1 && m[4] == 4 && m[7] == 7, 45);
  if (rank != 0) CHECK(m[0] == -1 && m[2] == -1, 46);
  MPI_Type_free(&column);

  free(all); free(counts); free(displs); free(sendv); free(recvv);
  MPI_Finalize();
  if (rank == n - 1) exit(3); /* exit() ends this rank only */
  return 0;
}

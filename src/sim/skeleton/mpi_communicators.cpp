// Communicator and topology entry points: rank and size, split, dup, free, and
// Cartesian grids (dims_create, cart_create and the queries on a grid).
#include <algorithm>
#include <memory>
#include <vector>

#include "sim/skeleton/mpi_entry.h"

using perfcast::events::Event;
using perfcast::events::Kind;

namespace perfcast::sim::skeleton {
namespace {

// A copy of comm (same ranks in the same order); shares the member list.
std::shared_ptr<Comm> copy_comm(Rank* rk, const CommRef& c) {
  auto copy = std::make_shared<Comm>();
  if (c.comm) {
    *copy = *c.comm;
  } else if (c.self) {
    copy->size = 1;
    copy->world_ranks = std::make_shared<const std::vector<int>>(1, rk->world_rank());
  } else {
    copy->size = rk->world_size();
  }
  return copy;
}

// The rank at `coords` in grid c (periodic dimensions wrap); *ok is false when
// a coordinate lies outside a non-periodic dimension.
int cart_rank_of(const Comm& c, const int* coords, bool* ok) {
  int r = 0;
  *ok = true;
  for (std::size_t d = 0; d < c.dims.size(); ++d) {
    int x = coords[d];
    if (c.periods[d]) x = ((x % c.dims[d]) + c.dims[d]) % c.dims[d];
    if (x < 0 || x >= c.dims[d]) *ok = false;
    r = r * c.dims[d] + x;
  }
  return r;
}

void cart_coords_of(const Comm& c, int rank, int* coords) {
  for (std::size_t d = c.dims.size(); d-- > 0;) {
    coords[d] = rank % c.dims[d];
    rank /= c.dims[d];
  }
}

// The Cartesian communicator `comm`; fails the rank when it has no grid.
const Comm& cart(Rank* rk, const char* call, MPI_Comm comm, CommRef* ref = nullptr) {
  CommRef c = rk->comm(comm, call);
  if (!c.comm || c.comm->dims.empty()) rk->fail(call, fmt::format("communicator {} has no Cartesian topology", comm));
  if (ref) *ref = c;
  return *c.comm;
}

}  // namespace
}  // namespace perfcast::sim::skeleton

using namespace perfcast::sim::skeleton;  // the entry points below use this file's helpers

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  PERFCAST_ENTER("MPI_Comm_rank");
  *rank = rk->comm(comm, call_name).rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  PERFCAST_ENTER("MPI_Comm_size");
  *size = rk->comm(comm, call_name).size;
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  PERFCAST_ENTER("MPI_Comm_split");
  rk->comm(comm, call_name);
  if (color < 0 && color != MPI_UNDEFINED) rk->fail(call_name, fmt::format("negative color {}", color));
  LiveOp* op = rk->new_op(call_name, Kind::CommSplit, comm);
  op->engine_refs = 1;
  op->comm_size = rk->comm(comm, call_name).size;
  op->d().color = color;
  op->d().key = key;
  int handle = color == MPI_UNDEFINED ? MPI_COMM_NULL : rk->next_comm_handle();
  Event& e = rk->begin(Kind::CommSplit);
  e.comm = comm;
  e.color = color;
  e.key = key;
  e.new_comm = handle;
  e.live = op;
  rk->emit();
  if (handle != MPI_COMM_NULL) {
    if (!op->d().new_comm) {
      rk->fail(call_name, "the engine did not report the new communicator's members (DataMover::collective)");
    }
    rk->add_comm(op->d().new_comm, op->d().new_rank);
  }
  *newcomm = handle;
  rk->done_with(op);
  return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  PERFCAST_ENTER("MPI_Comm_dup");
  CommRef c = rk->comm(comm, call_name);
  auto copy = copy_comm(rk, c);
  Event& e = rk->begin(Kind::CommDup);
  e.comm = comm;
  e.new_comm = rk->next_comm_handle();
  rk->emit();
  *newcomm = rk->add_comm(std::move(copy), c.rank);
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  PERFCAST_ENTER("MPI_Comm_free");
  if (!comm) return MPI_ERR_COMM;
  rk->free_comm(*comm, call_name);
  Event& e = rk->begin(Kind::CommFree);
  e.comm = *comm;
  rk->emit();
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// Also callable outside a rank's fiber (it needs no rank): errors are then only
// return codes.
int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  Rank* rk = current_rank();
  const char* call_name = "MPI_Dims_create";
  int fixed = 1, free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0 && rk) rk->fail(call_name, fmt::format("dims[{}] = {} is negative", i, dims[i]));
    if (dims[i] > 0)
      fixed *= dims[i];
    else
      ++free_dims;
  }
  if (fixed <= 0 || nnodes % fixed != 0) {
    if (rk) rk->fail(call_name, fmt::format("{} nodes cannot be divided by the given dimensions", nnodes));
    return MPI_ERR_ARG;
  }
  if (free_dims == 0) return MPI_SUCCESS;
  // Prime factors, largest first, each to the currently smallest free dimension.
  std::vector<int> primes;
  int rest = nnodes / fixed;
  for (int p = 2; p * p <= rest; ++p) {
    while (rest % p == 0) primes.push_back(p), rest /= p;
  }
  if (rest > 1) primes.push_back(rest);
  std::vector<int> free(static_cast<std::size_t>(free_dims), 1);
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) *std::min_element(free.begin(), free.end()) *= *it;
  std::sort(free.rbegin(), free.rend());
  for (int i = 0, k = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = free[static_cast<std::size_t>(k++)];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int, MPI_Comm* comm_cart) {
  PERFCAST_ENTER("MPI_Cart_create");
  CommRef c = rk->comm(comm_old, call_name);
  if (ndims < 0) rk->fail(call_name, fmt::format("negative ndims {}", ndims));
  long long cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) rk->fail(call_name, fmt::format("dims[{}] = {} is not positive", i, dims[i]));
    cells *= dims[i];
  }
  if (cells > c.size) {
    rk->fail(call_name, fmt::format("a grid of {} cells does not fit a communicator of {} ranks", cells, c.size));
  }
  bool member = c.rank < cells;
  int handle = member ? rk->next_comm_handle() : MPI_COMM_NULL;
  Event& e = rk->begin(Kind::CartCreate);
  e.comm = comm_old;
  e.new_comm = handle;
  rk->emit();
  if (member) {
    // Without reordering the grid is the first `cells` ranks of comm_old, in order.
    auto grid = copy_comm(rk, c);
    grid->size = static_cast<int>(cells);
    grid->dims.assign(dims, dims + ndims);
    grid->periods.assign(static_cast<std::size_t>(ndims), 0);
    for (int i = 0; i < ndims; ++i) grid->periods[i] = periods && periods[i] ? 1 : 0;
    rk->add_comm(std::move(grid), c.rank);
  }
  *comm_cart = handle;
  return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  PERFCAST_ENTER("MPI_Cartdim_get");
  *ndims = static_cast<int>(cart(rk, call_name, comm).dims.size());
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  PERFCAST_ENTER("MPI_Cart_get");
  CommRef ref;
  const Comm& c = cart(rk, call_name, comm, &ref);
  int n = std::min<int>(maxdims, static_cast<int>(c.dims.size()));
  std::vector<int> mine(c.dims.size());
  cart_coords_of(c, ref.rank, mine.data());
  for (int i = 0; i < n; ++i) {
    dims[i] = c.dims[i];
    periods[i] = c.periods[i];
    coords[i] = mine[i];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  PERFCAST_ENTER("MPI_Cart_coords");
  const Comm& c = cart(rk, call_name, comm);
  if (rank < 0 || rank >= c.size) rk->fail(call_name, fmt::format("rank {} is not in the grid", rank));
  if (maxdims < static_cast<int>(c.dims.size())) rk->fail(call_name, "maxdims is smaller than the grid's dimensions");
  cart_coords_of(c, rank, coords);
  return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  PERFCAST_ENTER("MPI_Cart_rank");
  const Comm& c = cart(rk, call_name, comm);
  bool ok = true;
  int r = cart_rank_of(c, coords, &ok);
  if (!ok) rk->fail(call_name, "coordinates outside a non-periodic dimension");
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  PERFCAST_ENTER("MPI_Cart_shift");
  CommRef ref;
  const Comm& c = cart(rk, call_name, comm, &ref);
  if (direction < 0 || direction >= static_cast<int>(c.dims.size())) {
    rk->fail(call_name, fmt::format("direction {} of a {}-dimensional grid", direction, c.dims.size()));
  }
  std::vector<int> coords(c.dims.size());
  cart_coords_of(c, ref.rank, coords.data());
  auto neighbour = [&](int offset) {
    std::vector<int> x = coords;
    x[static_cast<std::size_t>(direction)] += offset;
    bool ok = true;
    int r = cart_rank_of(c, x.data(), &ok);
    return ok ? r : MPI_PROC_NULL;
  };
  *rank_dest = neighbour(disp);
  *rank_source = neighbour(-disp);
  return MPI_SUCCESS;
}

}  // extern "C"

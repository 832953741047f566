#include "machine/collective_table.h"

#include <algorithm>
#include <cmath>

namespace perfcast::machine {

const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Barrier: return "barrier";
    case CollectiveOp::Bcast: return "bcast";
    case CollectiveOp::Reduce: return "reduce";
    case CollectiveOp::Allreduce: return "allreduce";
    case CollectiveOp::Gather: return "gather";
    case CollectiveOp::Scatter: return "scatter";
    case CollectiveOp::Allgather: return "allgather";
    case CollectiveOp::Alltoall: return "alltoall";
    case CollectiveOp::ReduceScatter: return "reduce_scatter";
  }
  return "?";
}

std::optional<CollectiveOp> parse_collective_op(std::string_view name) {
  for (auto op : kAllCollectiveOps)
    if (name == collective_op_name(op)) return op;
  return std::nullopt;
}

namespace {

// The segment [i, i+1] used for x, and x's position t on it (t outside [0,1]
// extrapolates). With one point, i = 0 and t = 0.
struct Segment {
  size_t i = 0;
  double t = 0;
};

Segment locate(const std::vector<double>& xs, double x) {
  if (xs.size() < 2) return {};
  size_t i = 0;
  if (x >= xs.back()) {
    i = xs.size() - 2;
  } else if (x > xs.front()) {
    i = static_cast<size_t>(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin()) - 1;
  }
  return {i, (x - xs[i]) / (xs[i + 1] - xs[i])};
}

double along_bytes(const std::vector<double>& row, Segment s) {
  if (row.size() < 2) return row.front();
  return row[s.i] + s.t * (row[s.i + 1] - row[s.i]);
}

}  // namespace

double CollectiveTable::time_at(int p, double b) const {
  std::vector<double> log_procs, byte_axis;
  for (int q : procs) log_procs.push_back(std::log2(static_cast<double>(q)));
  for (auto c : bytes) byte_axis.push_back(static_cast<double>(c));
  Segment sb = locate(byte_axis, b);
  Segment sp = locate(log_procs, std::log2(static_cast<double>(std::max(p, 1))));
  double lower = along_bytes(time_s[sp.i], sb);
  double value = lower;
  if (procs.size() >= 2) value = lower + sp.t * (along_bytes(time_s[sp.i + 1], sb) - lower);
  return std::max(value, 0.0);
}

}  // namespace perfcast::machine

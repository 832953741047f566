#include "machine/network_history.h"

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::machine {

namespace {

struct Weights {
  double history, measured;
  double mean(double h, double m) const { return (history * h + measured * m) / (history + measured); }
  // Bandwidths average as times per byte: two probes at 10 and 5 GB/s move a
  // byte in 0.15 ns on average, which is 6.7 GB/s, not 7.5.
  double mean_rate(double h, double m) const { return h > 0 && m > 0 ? 1 / mean(1 / h, 1 / m) : m; }
};

MessageTimes accumulate_curve(const MessageTimes& history, const MessageTimes& measured, const Weights& w,
                              const char* name) {
  if (history.empty() && measured.empty()) return measured;
  if (history.empty() != measured.empty() || history.bytes != measured.bytes)
    throw UserError(fmt::format("network.{} does not pair with the measurement: the file has {} sizes, the "
                                "measurement {}; a curve averages size by size",
                                name, history.bytes.size(), measured.bytes.size()),
                    {}, "measure afresh without --accumulate, then accumulate onto that");
  MessageTimes out = measured;
  for (size_t i = 0; i < out.time_s.size(); ++i) out.time_s[i] = w.mean(history.time_s[i], measured.time_s[i]);
  return out;
}

bool same_grid(const CollectiveTable& a, const CollectiveTable& b) {
  return a.op == b.op && a.procs == b.procs && a.bytes == b.bytes;
}

}  // namespace

bool has_measured_curves(const Network& network) {
  return !network.intra_node_one_way.empty() || !network.intra_node_exchange.empty();
}

Network with_measured_network(const Network& file, const Network& measured, bool one_node) {
  Network out = measured;
  out.topology = file.topology;
  out.hop_latency_s = file.hop_latency_s;
  out.rendezvous_handshakes = file.rendezvous_handshakes;
  if (!one_node) out.latency_s = file.latency_s, out.bandwidth_Bps = file.bandwidth_Bps;
  out.probes = 1;
  return out;
}

Network accumulate_network(const Network& history, const Network& measured, bool one_node) {
  // Figures written by hand (no measured curve) are no measurement to average with.
  if (!has_measured_curves(history)) return with_measured_network(history, measured, one_node);
  const Weights w{static_cast<double>(history.probes), static_cast<double>(measured.probes)};
  Network out = history;
  out.intra_node_latency_s = w.mean(history.intra_node_latency_s, measured.intra_node_latency_s);
  out.intra_node_bandwidth_Bps = w.mean_rate(history.intra_node_bandwidth_Bps, measured.intra_node_bandwidth_Bps);
  out.overhead_s = w.mean(history.overhead_s, measured.overhead_s);
  out.intra_node_one_way =
      accumulate_curve(history.intra_node_one_way, measured.intra_node_one_way, w, "intra_node_one_way");
  out.intra_node_exchange =
      accumulate_curve(history.intra_node_exchange, measured.intra_node_exchange, w, "intra_node_exchange");
  // A protocol switch, not a time: averaging two thresholds names a size
  // neither probe saw switch.
  out.eager_threshold_bytes = measured.eager_threshold_bytes;
  if (one_node) {
    out.latency_s = w.mean(history.latency_s, measured.latency_s);
    out.bandwidth_Bps = w.mean_rate(history.bandwidth_Bps, measured.bandwidth_Bps);
  }
  out.probes = history.probes + measured.probes;
  return out;
}

std::vector<CollectiveTable> accumulate_collectives(const std::vector<CollectiveTable>& history, int history_probes,
                                                    const std::vector<CollectiveTable>& measured,
                                                    int measured_probes) {
  const Weights w{static_cast<double>(history_probes), static_cast<double>(measured_probes)};
  std::vector<CollectiveTable> out = measured;
  for (auto& table : out) {
    for (const auto& before : history) {
      if (!same_grid(before, table)) continue;
      for (size_t r = 0; r < table.time_s.size(); ++r)
        for (size_t c = 0; c < table.time_s[r].size(); ++c)
          table.time_s[r][c] = w.mean(before.time_s[r][c], table.time_s[r][c]);
      break;
    }
  }
  return out;
}

}  // namespace perfcast::machine

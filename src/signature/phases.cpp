#include "signature/phases.h"

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>

namespace perfcast::signature {

const char* algorithm_name(Algorithm a) { return a == Algorithm::Repeats ? "repeats" : "loops"; }

bool parse_algorithm(const std::string& name, Algorithm& out) {
  if (name == "repeats")
    out = Algorithm::Repeats;
  else if (name == "loops")
    out = Algorithm::Loops;
  else
    return false;
  return true;
}

namespace {

// ---- repeats: suffix array, LCP intervals ----

std::vector<std::size_t> suffix_array(const std::vector<int>& s) {
  std::size_t n = s.size();
  std::vector<std::size_t> sa(n);
  std::iota(sa.begin(), sa.end(), 0);
  std::vector<long long> rank(n), next(n);
  for (std::size_t i = 0; i < n; ++i) rank[i] = s[i];
  for (std::size_t k = 1;; k <<= 1) {
    auto key = [&](std::size_t i) { return std::pair(rank[i], i + k < n ? rank[i + k] : LLONG_MIN); };
    std::sort(sa.begin(), sa.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    next[sa[0]] = 0;
    for (std::size_t i = 1; i < n; ++i) next[sa[i]] = next[sa[i - 1]] + (key(sa[i - 1]) < key(sa[i]) ? 1 : 0);
    rank = next;
    if (n == 0 || rank[sa[n - 1]] == static_cast<long long>(n - 1) || k >= n) break;
  }
  return sa;
}

// lcp[i]: the common prefix of the suffixes sa[i-1] and sa[i] (Kasai et al.).
std::vector<std::size_t> lcp_array(const std::vector<int>& s, const std::vector<std::size_t>& sa) {
  std::size_t n = s.size();
  std::vector<std::size_t> rank(n), lcp(n, 0);
  for (std::size_t i = 0; i < n; ++i) rank[sa[i]] = i;
  std::size_t h = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (rank[i] == 0) {
      h = 0;
      continue;
    }
    std::size_t j = sa[rank[i] - 1];
    while (i + h < n && j + h < n && s[i + h] == s[j + h]) ++h;
    lcp[rank[i]] = h;
    if (h) --h;
  }
  return lcp;
}

struct Repeat {
  std::size_t length = 0;
  std::vector<std::size_t> starts;  // non-overlapping, ascending
  std::size_t coverage() const { return length * starts.size(); }
};

// Better: covers more ticks; then more occurrences (the shortest period of a
// tandem repeat); then starts earlier.
bool better(const Repeat& a, const Repeat& b) {
  if (a.coverage() != b.coverage()) return a.coverage() > b.coverage();
  if (a.starts.size() != b.starts.size()) return a.starts.size() > b.starts.size();
  return a.starts.front() < b.starts.front();
}

// The repeat (>= 2 non-overlapping occurrences) covering most of `s`. Every
// LCP interval is a maximal repeat of its length; its occurrences are counted
// left to right without overlap.
Repeat best_repeat(const std::vector<int>& s) {
  Repeat best;
  std::size_t n = s.size();
  if (n < 2) return best;
  auto sa = suffix_array(s);
  auto lcp = lcp_array(s, sa);
  auto consider = [&](std::size_t length, std::size_t lb, std::size_t rb) {
    std::vector<std::size_t> pos(sa.begin() + static_cast<std::ptrdiff_t>(lb),
                                 sa.begin() + static_cast<std::ptrdiff_t>(rb) + 1);
    std::sort(pos.begin(), pos.end());
    Repeat r{length, {}};
    for (std::size_t p : pos)
      if (r.starts.empty() || p >= r.starts.back() + length) r.starts.push_back(p);
    if (r.starts.size() >= 2 && (best.starts.empty() || better(r, best))) best = std::move(r);
  };
  std::vector<std::pair<std::size_t, std::size_t>> stack = {{0, 0}};  // (lcp, left bound)
  for (std::size_t i = 1; i <= n; ++i) {
    std::size_t h = i < n ? lcp[i] : 0;
    std::size_t lb = i - 1;
    while (h < stack.back().first) {
      auto [len, left] = stack.back();
      stack.pop_back();
      consider(len, left, i - 1);
      lb = left;
    }
    if (h > stack.back().first) stack.push_back({h, lb});
  }
  return best;
}

PhaseDetection detect_repeats(const std::vector<int>& symbols) {
  PhaseDetection out;
  out.phase_of_tick.assign(symbols.size(), -1);
  std::vector<int> work = symbols;
  // Ticks taken by a phase become symbols of their own (below every block's),
  // so no later repeat can cross them.
  int taken = -1;
  for (;;) {
    Repeat r = best_repeat(work);
    if (r.starts.empty()) break;
    int id = static_cast<int>(out.phases.size());
    DetectedPhase phase;
    phase.blocks.assign(symbols.begin() + static_cast<std::ptrdiff_t>(r.starts.front()),
                        symbols.begin() + static_cast<std::ptrdiff_t>(r.starts.front() + r.length));
    phase.weight = static_cast<std::int64_t>(r.starts.size());
    phase.first_tick = static_cast<std::int64_t>(r.starts.front()) + 1;
    for (std::size_t start : r.starts)
      for (std::size_t t = start; t < start + r.length; ++t) {
        out.phase_of_tick[t] = id;
        work[t] = taken--;
      }
    out.phases.push_back(std::move(phase));
  }
  return out;
}

// ---- loops: online folding into a loop nest ----

class LoopFolder {
 public:
  explicit LoopFolder(int symbols) : symbols_(symbols) {}

  void append(int item) {
    items_.push_back(item);
    while (fold()) {
    }
  }
  const std::vector<int>& items() const { return items_; }
  bool is_loop(int item) const { return item >= symbols_; }
  const std::vector<int>& body(int item) const { return loops_[static_cast<std::size_t>(item - symbols_)].first; }
  std::int64_t trips(int item) const { return loops_[static_cast<std::size_t>(item - symbols_)].second; }

 private:
  int loop(const std::vector<int>& body, std::int64_t trips) {
    auto [it, added] = ids_.try_emplace({body, trips}, symbols_ + static_cast<int>(loops_.size()));
    if (added) loops_.push_back({body, trips});
    return it->second;
  }

  bool tail_equals(std::size_t from, std::size_t length, std::size_t other) const {
    return std::equal(items_.begin() + static_cast<std::ptrdiff_t>(from),
                      items_.begin() + static_cast<std::ptrdiff_t>(from + length),
                      items_.begin() + static_cast<std::ptrdiff_t>(other));
  }

  // One fold at the end of the list, shortest body first: one more trip of
  // the loop just before, or a body right after itself.
  bool fold() {
    std::size_t n = items_.size();
    for (std::size_t len = 1; len <= std::min(kLoopWindowTicks, n); ++len) {
      std::size_t tail = n - len;
      if (n >= len + 1 && is_loop(items_[tail - 1])) {
        int before = items_[tail - 1];
        const auto& b = body(before);
        if (b.size() == len && std::equal(b.begin(), b.end(), items_.begin() + static_cast<std::ptrdiff_t>(tail))) {
          int extended = loop(std::vector<int>(b), trips(before) + 1);
          items_.resize(tail);
          items_.back() = extended;
          return true;
        }
      }
      if (n >= 2 * len && tail_equals(tail, len, tail - len)) {
        std::vector<int> b(items_.begin() + static_cast<std::ptrdiff_t>(tail), items_.end());
        items_.resize(tail - len);
        items_.push_back(loop(b, 2));
        return true;
      }
    }
    return false;
  }

  int symbols_;
  std::vector<int> items_;
  std::vector<std::pair<std::vector<int>, std::int64_t>> loops_;
  std::map<std::pair<std::vector<int>, std::int64_t>, int> ids_;
};

class LoopWalk {
 public:
  LoopWalk(const LoopFolder& folder, PhaseDetection& out) : folder_(folder), out_(out) {}

  void top(int item) {
    if (!folder_.is_loop(item)) {
      out_.phase_of_tick.push_back(-1);
      return;
    }
    run(item);
  }

 private:
  // Runs a loop; returns its body's phase.
  int run(int item) {
    const auto& body = folder_.body(item);
    auto [it, added] = phase_of_body_.try_emplace(body, static_cast<int>(out_.phases.size()));
    int id = it->second;
    if (added) {
      DetectedPhase p;
      p.first_tick = static_cast<std::int64_t>(out_.phase_of_tick.size()) + 1;
      for (int b : body)
        if (!folder_.is_loop(b)) p.blocks.push_back(b);
      out_.phases.push_back(std::move(p));
    }
    std::vector<int> inner;
    for (std::int64_t trip = 0; trip < folder_.trips(item); ++trip) {
      ++out_.phases[static_cast<std::size_t>(id)].weight;
      for (int b : body) {
        if (folder_.is_loop(b)) {
          int child = run(b);
          if (trip == 0 && (inner.empty() || inner.back() != child)) inner.push_back(child);
        } else {
          out_.phase_of_tick.push_back(id);
        }
      }
    }
    if (added) out_.phases[static_cast<std::size_t>(id)].inner = inner;
    return id;
  }

  const LoopFolder& folder_;
  PhaseDetection& out_;
  std::map<std::vector<int>, int> phase_of_body_;
};

PhaseDetection detect_loops(const std::vector<int>& symbols) {
  int distinct = symbols.empty() ? 0 : *std::max_element(symbols.begin(), symbols.end()) + 1;
  LoopFolder folder(distinct);
  for (int s : symbols) folder.append(s);
  PhaseDetection out;
  LoopWalk walk(folder, out);
  for (int item : folder.items()) walk.top(item);
  return out;
}

}  // namespace

PhaseDetection detect_phases(const std::vector<int>& symbols, Algorithm algorithm) {
  return algorithm == Algorithm::Repeats ? detect_repeats(symbols) : detect_loops(symbols);
}

}  // namespace perfcast::signature

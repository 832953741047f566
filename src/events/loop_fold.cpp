#include "events/loop_fold.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace perfcast::events::codec {

namespace {

constexpr std::uint8_t kLoopByte = 0x7f;
static_assert(kKindCount < kLoopByte, "event kinds must leave the loop byte free");
// Nesting deeper than this is refused when reading (a forged payload must not
// overflow the stack); the folder never nests anywhere near it in practice.
constexpr int kMaxDepth = 200;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

void put_stats(std::string& out, const TimeStats& t) {
  if (same_bits(t.min, t.max)) {
    out.push_back(0);
    put_time(out, t.min);
    return;
  }
  out.push_back(1);
  put_time(out, t.min);
  put_time(out, t.max);
  put_raw_double(out, std::clamp(t.mean(), t.min, t.max));  // rounding must not leave the range
}

// The time expansion gives every occurrence of a position.
double get_stats(const std::uint8_t*& p, const std::uint8_t* end) {
  if (p == end) throw DecodeError("payload ends inside a loop position's times");
  std::uint8_t form = *p++;
  if (form == 0) return get_time(p, end);
  if (form != 1) throw DecodeError("bad times form");
  double min = get_time(p, end);
  double max = get_time(p, end);
  double mean = get_raw_double(p, end);
  if (!(mean >= min && mean <= max)) throw DecodeError("a position's mean lies outside its minimum and maximum");
  return mean;
}

}  // namespace

void TimeStats::add(double value) {
  if (count == 0) {
    min = max = value;
  } else {
    min = std::min(min, value);
    max = std::max(max, value);
  }
  sum += value;
  ++count;
}

void TimeStats::merge(const TimeStats& other) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  min = std::min(min, other.min);
  max = std::max(max, other.max);
  sum += other.sum;
  count += other.count;
}

// A leaf (trips == 0: one event's shape and times) or a loop. `hash` is of the
// structure only (shapes, trips, bodies): equal structures, equal hashes.
struct LoopFolder::Node {
  std::uint64_t hash = 0;
  std::uint64_t trips = 0;
  std::string shape;
  EventTimes has;
  TimeStats seconds, duration;
  std::vector<Node> body;
  std::uint64_t positions = 1;
  std::uint64_t events = 1;
  std::uint64_t request_before = 0;  // the request state its first event's shape is relative to

  bool is_loop() const { return trips != 0; }

  void rehash() {
    std::uint64_t h = mix(0x51ed270b27d3a9c5ull, trips);
    positions = 0;
    std::uint64_t per_trip = 0;
    for (const Node& n : body) {
      h = mix(h, n.hash);
      positions += n.positions;
      per_trip = saturating_add(per_trip, n.events);
    }
    hash = h;
    events = saturating_multiply(per_trip, trips);
  }

  bool same_structure(const Node& other) const {
    if (hash != other.hash || trips != other.trips) return false;
    if (!is_loop()) return shape == other.shape;
    if (body.size() != other.body.size()) return false;
    for (std::size_t i = 0; i < body.size(); ++i)
      if (!body[i].same_structure(other.body[i])) return false;
    return true;
  }

  // Precondition: same_structure(other).
  void merge_times(const Node& other) {
    seconds.merge(other.seconds);
    duration.merge(other.duration);
    for (std::size_t i = 0; i < body.size(); ++i) body[i].merge_times(other.body[i]);
  }

  void encode(std::string& out) const {
    if (!is_loop()) {
      out += shape;
      if (has.seconds) put_stats(out, seconds);
      if (has.duration) put_stats(out, duration);
      return;
    }
    out.push_back(static_cast<char>(kLoopByte));
    put_number(out, trips);
    put_number(out, body.size());
    for (const Node& n : body) n.encode(out);
  }
};

LoopFolder::LoopFolder(std::size_t window) : window_(std::max<std::size_t>(window, 1)) {}
LoopFolder::~LoopFolder() = default;

std::size_t LoopFolder::items() const { return items_.size(); }

std::uint64_t LoopFolder::positions() const {
  std::uint64_t total = 0;
  for (const Node& n : items_) total += n.positions;
  return total;
}

std::size_t LoopFolder::settled() const { return items_.size() > 2 * window_ ? items_.size() - 2 * window_ : 0; }

std::uint64_t LoopFolder::events(std::size_t count) const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count && i < items_.size(); ++i) total = saturating_add(total, items_[i].events);
  return total;
}

void LoopFolder::append(const Event& event) {
  Node leaf;
  leaf.request_before = previous_request_;
  put_shape(leaf.shape, event, previous_request_);
  leaf.has.seconds = !same_bits(event.seconds, Event{}.seconds);
  leaf.has.duration = !same_bits(event.duration_s, Event{}.duration_s);
  if (leaf.has.seconds) leaf.seconds.add(event.seconds);
  if (leaf.has.duration) leaf.duration.add(event.duration_s);
  leaf.hash = mix(0x2545f4914f6cdd1dull, std::hash<std::string>{}(leaf.shape));
  items_.push_back(std::move(leaf));
  while (fold()) {
  }
}

// One fold at the end of the items, shortest body first: one more trip of
// the loop just before, or a body right after an equal one.
bool LoopFolder::fold() {
  const std::size_t n = items_.size();
  for (std::size_t len = 1; len <= std::min(window_, n); ++len) {
    const std::size_t tail = n - len;
    auto equal_run = [&](const std::vector<Node>& a, std::size_t a_from, std::size_t b_from) {
      for (std::size_t i = 0; i < len; ++i)
        if (!a[a_from + i].same_structure(items_[b_from + i])) return false;
      return true;
    };
    if (tail >= 1) {
      Node& before = items_[tail - 1];
      if (before.is_loop() && before.body.size() == len && before.body.back().hash == items_[n - 1].hash &&
          equal_run(before.body, 0, tail)) {
        for (std::size_t i = 0; i < len; ++i) before.body[i].merge_times(items_[tail + i]);
        ++before.trips;
        before.rehash();
        items_.resize(tail);
        return true;
      }
    }
    if (n >= 2 * len && items_[tail - 1].hash == items_[n - 1].hash && equal_run(items_, tail - len, tail)) {
      Node loop;
      loop.trips = 2;
      loop.request_before = items_[tail - len].request_before;
      loop.body.assign(std::make_move_iterator(items_.begin() + static_cast<std::ptrdiff_t>(tail - len)),
                       std::make_move_iterator(items_.begin() + static_cast<std::ptrdiff_t>(tail)));
      for (std::size_t i = 0; i < len; ++i) loop.body[i].merge_times(items_[tail + i]);
      loop.rehash();
      items_.resize(tail - len);
      items_.push_back(std::move(loop));
      return true;
    }
  }
  return false;
}

void LoopFolder::encode(std::size_t count, std::string& out) const {
  count = std::min(count, items_.size());
  put_number(out, events(count));
  put_number(out, count ? items_.front().request_before : previous_request_);
  put_number(out, count);
  for (std::size_t i = 0; i < count; ++i) items_[i].encode(out);
}

void LoopFolder::drop(std::size_t count) {
  count = std::min(count, items_.size());
  items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(count));
}

// ---------------------------------------------------------------- reading

std::uint32_t FoldedBlockDecoder::parse_item(const std::uint8_t*& p, const std::uint8_t* end, int depth,
                                             std::uint64_t& events) {
  if (depth > kMaxDepth) throw DecodeError("loops nested too deep");
  if (p == end) throw DecodeError("payload ends before its last item");
  Node node;
  if (*p == kLoopByte) {
    ++p;
    node.loop = true;
    node.trips = get_number(p, end);
    std::uint64_t count = get_number(p, end);
    if (node.trips == 0 || count == 0) throw DecodeError("a loop without trips or body");
    // Every item takes at least one byte: a larger count is corruption.
    if (count > static_cast<std::uint64_t>(end - p)) throw DecodeError("loop body longer than its block");
    std::vector<std::uint32_t> body;
    std::uint64_t per_trip = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t inner = 0;
      body.push_back(parse_item(p, end, depth + 1, inner));
      per_trip = saturating_add(per_trip, inner);
    }
    node.first = static_cast<std::uint32_t>(children_.size());
    node.count = static_cast<std::uint32_t>(body.size());
    children_.insert(children_.end(), body.begin(), body.end());
    events = saturating_multiply(per_trip, node.trips);
  } else {
    Event scratch;
    std::uint64_t request = 0;
    node.shape = p;
    EventTimes has = get_shape(p, end, scratch, request);
    node.shape_end = p;
    if (has.seconds) node.seconds = get_stats(p, end);
    if (has.duration) node.duration = get_stats(p, end);
    events = 1;
  }
  nodes_.push_back(node);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void FoldedBlockDecoder::reset(const std::uint8_t* data, std::size_t size, std::uint32_t items) {
  nodes_.clear();
  children_.clear();
  stack_.clear();
  decoded_ = 0;
  const std::uint8_t* p = data;
  end_ = data + size;
  events_ = get_number(p, end_);
  previous_request_ = get_number(p, end_);
  std::uint64_t count = get_number(p, end_);
  if (count != items) throw DecodeError("the block header and its payload count different items");
  if (count == 0 || count > static_cast<std::uint64_t>(end_ - p)) throw DecodeError("impossible item count");
  std::vector<std::uint32_t> top;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t inner = 0;
    top.push_back(parse_item(p, end_, 0, inner));
    total = saturating_add(total, inner);
  }
  if (p != end_) throw DecodeError("bytes left after the block's last item");
  if (total != events_) throw DecodeError("the loops expand to another number of events than the block says");
  Node root;
  root.loop = true;
  root.trips = 1;
  root.first = static_cast<std::uint32_t>(children_.size());
  root.count = static_cast<std::uint32_t>(top.size());
  children_.insert(children_.end(), top.begin(), top.end());
  nodes_.push_back(root);
  stack_.push_back({static_cast<std::uint32_t>(nodes_.size() - 1)});
}

void FoldedBlockDecoder::next(Event& out) {
  while (!stack_.empty()) {
    Frame& frame = stack_.back();
    const Node& node = nodes_[frame.node];
    if (frame.position == node.count) {
      if (++frame.trip < node.trips) {
        frame.position = 0;
        continue;
      }
      stack_.pop_back();
      if (!stack_.empty()) ++stack_.back().position;
      continue;
    }
    std::uint32_t child = children_[node.first + frame.position];
    const Node& item = nodes_[child];
    if (item.loop) {
      stack_.push_back({child});
      continue;
    }
    const std::uint8_t* p = item.shape;
    get_shape(p, item.shape_end, out, previous_request_);
    out.seconds = item.seconds;
    out.duration_s = item.duration;
    ++frame.position;
    ++decoded_;
    return;
  }
  throw DecodeError("the block's loops end before its events");
}

}  // namespace perfcast::events::codec

// Event streams held in memory: for tests, for small generated jobs, and for
// program models evaluated into events. (Recorded traces are read from files by
// cursors instead, so a rank's events are never all in memory.)
#pragma once

#include <memory>
#include <vector>

#include "events/source.h"

namespace perfcast::events {

class VectorRankSource : public RankSource {
 public:
  explicit VectorRankSource(const std::vector<Event>* events) : events_(events) {}
  bool next(Event& out, double) override {
    if (position_ >= events_->size()) return false;
    out = (*events_)[position_++];
    return true;
  }

 private:
  const std::vector<Event>* events_;
  size_t position_ = 0;
};

// ranks[r] is rank r's stream; the JobSource must outlive the sources it opens.
class VectorJobSource : public JobSource {
 public:
  explicit VectorJobSource(std::vector<std::vector<Event>> ranks) : ranks_(std::move(ranks)) {}
  int size() const override { return static_cast<int>(ranks_.size()); }
  std::unique_ptr<RankSource> open_rank(int rank) override {
    return std::make_unique<VectorRankSource>(&ranks_.at(static_cast<size_t>(rank)));
  }
  std::vector<std::vector<Event>>& ranks() { return ranks_; }

 private:
  std::vector<std::vector<Event>> ranks_;
};

}  // namespace perfcast::events

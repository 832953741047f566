#include "analyze/program_tree.h"

#include <algorithm>

namespace perfcast::analyze::detail {

using expr::Expr;

bool Node::empty_compute() const {
  return kind == Compute && flops_double == Expr(0) && flops_single == Expr(0) && loads == Expr(0) &&
         stores == Expr(0) && load_bytes == Expr(0) && store_bytes == Expr(0) && math.empty();
}

void for_each_expression(const Items& items, const std::function<void(const Expr&)>& use, bool with_footprints) {
  for (const auto& n : items) {
    use(n->flops_double), use(n->flops_single), use(n->loads), use(n->stores), use(n->load_bytes);
    use(n->store_bytes), use(n->trip_count), use(n->bytes);
    for (const auto& [k, v] : n->math) use(v);
    if (n->condition) use(*n->condition);
    if (n->share) use(*n->share);
    if (n->peer) use(*n->peer);
    if (n->root) use(*n->root);
    if (n->level) use(*n->level);
    for (const auto& [k, v] : n->args) use(v);
    if (with_footprints) {
      if (n->footprint)
        for (const Expr& e : *n->footprint) use(e);
      for (const auto& offsets : n->stream_offsets)
        for (const Expr& e : offsets) use(e);
    }
    for_each_expression(n->body, use, with_footprints);
    for_each_expression(n->then_items, use, with_footprints);
    for_each_expression(n->else_items, use, with_footprints);
  }
}

void rewrite_expressions(Items& items, const std::function<void(Expr&)>& rewrite) {
  auto optional = [&](std::optional<Expr>& e) {
    if (e) rewrite(*e);
  };
  for (auto& n : items) {
    for (Expr* e : {&n->flops_double, &n->flops_single, &n->loads, &n->stores, &n->load_bytes, &n->store_bytes,
                    &n->trip_count, &n->bytes})
      rewrite(*e);
    for (auto& [k, v] : n->math) rewrite(v);
    optional(n->condition), optional(n->share), optional(n->peer), optional(n->root), optional(n->level);
    optional(n->cycles_per_iteration);
    for (auto& [k, v] : n->args) rewrite(v);
    for (auto& arg : n->positional_args) optional(arg);
    if (n->footprint)
      for (Expr& e : *n->footprint) rewrite(e);
    for (auto& offsets : n->stream_offsets)
      for (Expr& e : offsets) rewrite(e);
    rewrite_expressions(n->body, rewrite);
    rewrite_expressions(n->then_items, rewrite);
    rewrite_expressions(n->else_items, rewrite);
  }
}

void prune(Items& items) {
  for (auto& n : items) prune(n->body), prune(n->then_items), prune(n->else_items);
  items.erase(std::remove_if(items.begin(), items.end(),
                             [](const std::unique_ptr<Node>& n) {
                               return (n->kind == Node::Branch && n->then_items.empty() && n->else_items.empty()) ||
                                      (n->kind == Node::Compute && n->empty_compute() && n->note.empty());
                             }),
              items.end());
  Items merged;
  for (auto& n : items) {
    Node* last = merged.empty() ? nullptr : merged.back().get();
    if (last && last->kind == Node::Compute && n->kind == Node::Compute && last->note == n->note &&
        !n->empty_compute()) {
      last->flops_double = last->flops_double + n->flops_double;
      last->flops_single = last->flops_single + n->flops_single;
      last->loads = last->loads + n->loads;
      last->stores = last->stores + n->stores;
      last->load_bytes = last->load_bytes + n->load_bytes;
      last->store_bytes = last->store_bytes + n->store_bytes;
      for (const auto& [k, v] : n->math) last->math[k] = last->math.count(k) ? last->math[k] + v : v;
      if (!last->line) last->line = n->line;
      continue;
    }
    merged.push_back(std::move(n));
  }
  items = std::move(merged);
}

}  // namespace perfcast::analyze::detail

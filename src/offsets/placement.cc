#include "src/offsets/placement.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>

namespace memplan::offsets_internal {

CompactSteps Compact(const Problem& problem) {
  const std::size_t n = problem.size();
  CompactSteps out;
  out.first.resize(n);
  out.last.resize(n);
  Step max_step = 0;
  for (const UsageRecord& r : problem.records) max_step = std::max(max_step, r.last);
  // Dense enough already: keep the steps as they are (no sort needed).
  if (max_step <= static_cast<Step>(4 * n + 64)) {
    for (std::size_t i = 0; i < n; ++i) {
      out.first[i] = static_cast<std::int32_t>(problem.records[i].first);
      out.last[i] = static_cast<std::int32_t>(problem.records[i].last);
    }
    out.count = n == 0 ? 0 : static_cast<std::int32_t>(max_step + 1);
    return out;
  }
  std::vector<Step> values;
  values.reserve(2 * n);
  for (const UsageRecord& r : problem.records) {
    values.push_back(r.first);
    values.push_back(r.last);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  // New number of each distinct value; a run of unused steps before it becomes one step.
  std::vector<std::int32_t> number(values.size());
  std::int32_t next = 0;
  Step previous = -1;
  for (std::size_t v = 0; v < values.size(); ++v) {
    if (values[v] > previous + 1) ++next;  // the unused steps between
    number[v] = next++;
    previous = values[v];
  }
  auto renumber = [&](Step s) {
    return number[static_cast<std::size_t>(std::lower_bound(values.begin(), values.end(), s) -
                                           values.begin())];
  };
  for (std::size_t i = 0; i < n; ++i) {
    out.first[i] = renumber(problem.records[i].first);
    out.last[i] = renumber(problem.records[i].last);
  }
  out.count = next;
  return out;
}

ConflictIndex::ConflictIndex(const CompactSteps& steps) {
  const std::size_t n = steps.first.size();
  if (n == 0) return;
  // Group of each record: floor(log2(length + 1)), length = last - first.
  std::vector<std::uint8_t> group_of(n);
  std::vector<std::size_t> group_size(33, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto span = static_cast<std::uint32_t>(steps.last[i] - steps.first[i]) + 1;
    group_of[i] = static_cast<std::uint8_t>(std::bit_width(span) - 1);
    ++group_size[group_of[i]];
  }
  // Counting sort by (group, block): the start of every block of every group.
  std::vector<std::size_t> group_slot(33, 0);
  std::uint32_t total = 0;
  for (int g = 0; g < 33; ++g) {
    if (group_size[g] == 0) continue;
    Group group;
    group.shift = g;
    const std::size_t blocks = (static_cast<std::size_t>(steps.count - 1) >> g) + 1;
    group.block_start.assign(blocks + 1, 0);
    group_slot[g] = groups_.size();
    groups_.push_back(std::move(group));
  }
  for (std::size_t i = 0; i < n; ++i) {
    Group& group = groups_[group_slot[group_of[i]]];
    ++group.block_start[(static_cast<std::size_t>(steps.first[i]) >> group.shift) + 1];
  }
  for (Group& group : groups_) {
    group.block_start[0] = total;
    for (std::size_t b = 1; b < group.block_start.size(); ++b)
      group.block_start[b] += group.block_start[b - 1];
    total = group.block_start.back();
  }
  entries_.resize(n);
  // Second pass: place each record at its block's next free entry (record order).
  std::vector<std::vector<std::uint32_t>> cursor(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g)
    cursor[g].assign(groups_[g].block_start.begin(), groups_[g].block_start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = group_slot[group_of[i]];
    const std::size_t block = static_cast<std::size_t>(steps.first[i]) >> groups_[g].shift;
    entries_[cursor[g][block]++] = {steps.first[i], steps.last[i], static_cast<std::uint32_t>(i)};
  }
}

Bytes ChooseOffset(Fit fit, std::span<const Neighbour> placed, Bytes size, Bytes alignment) {
  switch (fit) {
    case Fit::kBest:
    case Fit::kFirst: {
      Bytes prev = 0;  // aligned end of everything walked so far
      Bytes best_gap = std::numeric_limits<Bytes>::max();
      std::optional<Bytes> best;
      for (const Neighbour& p : placed) {
        if (p.offset >= prev) {
          const Bytes gap = p.offset - prev;
          if (gap >= size && gap < best_gap) {
            best_gap = gap;
            best = prev;
            if (fit == Fit::kFirst) return prev;
          }
        }
        prev = std::max(prev, AlignUp(p.offset + p.size, alignment));
      }
      return best ? *best : prev;
    }
    case Fit::kArena: {
      Bytes current = 0;  // unaligned end of everything walked so far
      Bytes best_fit = std::numeric_limits<Bytes>::max();
      std::optional<Bytes> best;
      for (const Neighbour& p : placed) {
        const Bytes start = AlignUp(current, alignment);
        if (start + size <= p.offset && p.offset - start < best_fit) {
          best = start;
          best_fit = p.offset - current;  // SimpleMemoryArena measures from the unaligned end
        }
        current = std::max(current, p.offset + p.size);
        if (best_fit == 0) break;
      }
      return best ? *best : AlignUp(current, alignment);
    }
    case Fit::kTop: {
      Bytes top = 0;
      for (const Neighbour& p : placed) top = std::max(top, AlignUp(p.offset + p.size, alignment));
      return top;
    }
  }
  return 0;
}

Placer::Placer(const Problem& problem, const CompactSteps& steps, const ConflictIndex& index,
               bool keep_empty)
    : problem_(problem), steps_(steps), index_(index) {
  Reset(keep_empty);
}

void Placer::Reset(bool keep_empty) {
  keep_empty_ = keep_empty;
  offsets_.assign(problem_.size(), 0);
  order_.assign(problem_.size(), 0);
  placed_count_ = 0;
  arena_ = 0;
  for (std::size_t i = 0; i < problem_.size(); ++i)
    if (problem_.IsFixed(i)) Register(i, *problem_.fixed_offsets[i]);
}

void Placer::Register(std::size_t r, Bytes offset) {
  offsets_[r] = offset;
  const Bytes size = problem_.records[r].size;
  arena_ = std::max(arena_, offset + size);
  if (size == 0 && !keep_empty_) return;  // placed, but invisible to later records
  order_[r] = ++placed_count_;
}

Bytes Placer::Place(std::size_t r, Fit fit) {
  const Bytes size = problem_.records[r].size;
  if (size == 0 && fit == Fit::kArena) {
    Register(r, 0);  // SimpleMemoryArena: empty tensors sit at 0 and are not recorded
    return 0;
  }
  scratch_.clear();
  index_.ForEachMeeting(steps_.first[r], steps_.last[r], [&](std::uint32_t p) {
    if (order_[p] != 0) scratch_.push_back({offsets_[p], order_[p], problem_.records[p].size});
  });
  std::sort(scratch_.begin(), scratch_.end(), [](const Neighbour& a, const Neighbour& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.order < b.order;
  });
  const Bytes offset = ChooseOffset(fit, scratch_, size, problem_.alignment);
  Register(r, offset);
  return offset;
}

std::vector<std::size_t> OnlineRecords(const Problem& problem) {
  std::vector<std::size_t> out;
  out.reserve(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (!problem.IsFixed(i)) out.push_back(i);
  return out;
}

OffsetPlan PlaceInOrder(const Problem& problem, std::span<const std::size_t> order, Fit fit,
                        std::string strategy) {
  const CompactSteps steps = Compact(problem);
  const ConflictIndex index(steps);
  Placer placer(problem, steps, index, fit != Fit::kArena);
  for (std::size_t r : order) placer.Place(r, fit);
  return MakeOffsetPlan(problem, std::move(strategy), placer.TakeOffsets());
}

}  // namespace memplan::offsets_internal

#include "src/offsets/placement.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>

namespace memplan::offsets {

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

std::vector<Bytes> LiveBytes(const Problem& problem, const CompactSteps& steps, Bytes alignment) {
  const auto count = static_cast<std::size_t>(steps.count);
  // +size at a record's first step, -size after its last, then a running sum.
  std::vector<Bytes> live(count + 1, 0);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const Bytes size = AlignUp(problem.records[i].size, alignment);
    live[static_cast<std::size_t>(steps.first[i])] += size;
    live[static_cast<std::size_t>(steps.last[i]) + 1] -= size;
  }
  for (std::size_t t = 1; t < count; ++t) live[t] += live[t - 1];
  live.resize(count);
  return live;
}

ConflictIndex::ConflictIndex(const CompactSteps& steps) {
  const std::size_t n = steps.first.size();
  if (n == 0) return;
  // Group of each record: floor(log2(length + 1) / kGroupBits), length = last - first.
  std::vector<std::uint8_t> group_of(n);
  std::vector<std::size_t> group_size(33, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto span = static_cast<std::uint32_t>(steps.last[i] - steps.first[i]) + 1;
    group_of[i] = static_cast<std::uint8_t>((std::bit_width(span) - 1) / kGroupBits);
    ++group_size[group_of[i]];
  }
  // Counting sort by (group, block): the start of every block of every group.
  std::vector<std::size_t> group_slot(33, 0);
  std::uint32_t total = 0;
  for (int g = 0; g < 33; ++g) {
    if (group_size[g] == 0) continue;
    Group group;
    group.shift = g * kGroupBits;
    group.reach = (std::int64_t{1} << ((g + 1) * kGroupBits)) - 2;
    const std::size_t blocks = (static_cast<std::size_t>(steps.count - 1) >> group.shift) + 1;
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
  position_.resize(n);
  for (std::uint32_t e = 0; e < n; ++e) position_[entries_[e].record] = e;
}

Bytes ChooseOffset(Fit fit, std::span<const Neighbour> placed, Bytes size, Bytes alignment) {
  switch (fit) {
    case Fit::kSmallestGap:
    case Fit::kLowestGap: {
      Bytes prev = 0;  // aligned end of everything walked so far
      Bytes best_gap = std::numeric_limits<Bytes>::max();
      std::optional<Bytes> best;
      for (const Neighbour& p : placed) {
        if (p.offset >= prev) {
          const Bytes gap = p.offset - prev;
          if (gap >= size && gap < best_gap) {
            best_gap = gap;
            best = prev;
            if (fit == Fit::kLowestGap) return prev;
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
    case Fit::kAboveAll: {
      Bytes top = 0;
      for (const Neighbour& p : placed) top = std::max(top, AlignUp(p.offset + p.size, alignment));
      return top;
    }
  }
  return 0;
}

namespace {

// The first block at or after `at` that ends after `reach` (ends increase along a list):
// galloping, so a long run of blocks another list already covers costs its logarithm.
const OccupancyTree::Block* SkipCovered(const OccupancyTree::Block* at,
                                        const OccupancyTree::Block* end, Bytes reach) {
  if (at == end || at->end > reach) return at;
  std::size_t step = 1;
  while (at + step < end && (at + step)->end <= reach) {
    at += step;
    step *= 2;
  }
  const OccupancyTree::Block* hi = at + step < end ? at + step : end;
  return std::upper_bound(at + 1, hi, reach,
                          [](Bytes r, const OccupancyTree::Block& b) { return r < b.end; });
}

// The blocks of several sorted lists in order of their starts (a k-way merge over a
// small heap), leaving out blocks that end at or below `reach`, which the caller keeps
// as the highest end visited so far: such a block neither opens a gap nor raises the
// reach. Stops as soon as `visit` returns false.
template <class Visit>
void ForEachBlockInOrder(std::span<const std::span<const OccupancyTree::Block>> lists,
                         const Bytes& reach, Visit&& visit) {
  using Block = OccupancyTree::Block;
  if (lists.size() == 1) {
    for (const Block& b : lists[0])
      if (!visit(b)) return;
    return;
  }
  struct Cursor {
    const Block* at;
    const Block* end;
  };
  // A min-heap on at->begin, kept by hand: the top is replaced in place as it advances.
  thread_local std::vector<Cursor> heap;
  heap.clear();
  for (const auto& list : lists)
    if (!list.empty()) heap.push_back({list.data(), list.data() + list.size()});
  const auto later = [](const Cursor& a, const Cursor& b) { return a.at->begin > b.at->begin; };
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    Cursor& top = heap.front();
    if (top.at->end > reach && !visit(*top.at)) return;
    top.at = SkipCovered(top.at + 1, top.end, reach);
    if (top.at == top.end) {
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
      continue;
    }
    // Sift the advanced top down.
    const std::size_t n = heap.size();
    std::size_t i = 0;
    const Cursor moving = heap[0];
    while (true) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap[child + 1].at->begin < heap[child].at->begin) ++child;
      if (heap[child].at->begin >= moving.at->begin) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = moving;
  }
}

}  // namespace

Bytes ChooseOffsetInBlocks(Fit fit, std::span<const std::span<const OccupancyTree::Block>> lists,
                           Bytes size, Bytes alignment) {
  using Block = OccupancyTree::Block;
  switch (fit) {
    case Fit::kSmallestGap:
    case Fit::kLowestGap: {
      // ChooseOffset's walk over the union's blocks: the gaps it sees are the union's
      // gaps (size > 0 never fits the empty gaps between touching records).
      Bytes prev = 0;
      Bytes best_gap = std::numeric_limits<Bytes>::max();
      std::optional<Bytes> best;
      ForEachBlockInOrder(lists, prev, [&](const Block& b) {
        if (b.begin >= prev) {
          const Bytes gap = b.begin - prev;
          if (gap >= size && gap < best_gap) {
            best_gap = gap;
            best = prev;
            // A first fit is final; so is a best fit without slack (no gap can beat it).
            if (fit == Fit::kLowestGap || gap == size) return false;
          }
        }
        prev = std::max(prev, b.end);
        return true;
      });
      return best ? *best : prev;
    }
    case Fit::kArena: {
      Bytes current = 0;
      Bytes best_fit = std::numeric_limits<Bytes>::max();
      std::optional<Bytes> best;
      ForEachBlockInOrder(lists, current, [&](const Block& b) {
        const Bytes start = AlignUp(current, alignment);
        if (start + size <= b.begin && b.begin - start < best_fit) {
          best = start;
          best_fit = b.begin - current;
          // Any later candidate has b.begin - start >= size: none can pass the test.
          if (best_fit <= size) return false;
        }
        current = std::max(current, b.end);
        return true;
      });
      return best ? *best : AlignUp(current, alignment);
    }
    case Fit::kAboveAll: {
      Bytes top = 0;
      for (const auto& list : lists)
        if (!list.empty()) top = std::max(top, list.back().end);
      return top;
    }
  }
  return 0;
}

std::vector<std::uint64_t> ConflictCounts(const Problem& problem) {
  const std::size_t n = problem.size();
  std::vector<Step> firsts(n), lasts(n);
  for (std::size_t i = 0; i < n; ++i) {
    firsts[i] = problem.records[i].first;
    lasts[i] = problem.records[i].last;
  }
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  std::vector<std::uint64_t> counts(n);
  for (std::size_t i = 0; i < n; ++i) {
    // All but those ending before it starts and those starting after it ends.
    const UsageRecord& r = problem.records[i];
    const auto ended = std::lower_bound(lasts.begin(), lasts.end(), r.first) - lasts.begin();
    const auto later = firsts.end() - std::upper_bound(firsts.begin(), firsts.end(), r.last);
    counts[i] = n - 1 - static_cast<std::uint64_t>(ended) - static_cast<std::uint64_t>(later);
  }
  return counts;
}

namespace {

// The list engine reads every placed record per placement (about n^2 / 4 reads a plan,
// each cheap); the index engine reads about the conflicting ones and sorts them (a few
// times 2 x Σ conflicts, each dearer). Lists win only on small, dense problems.
// The tree engine reads a few lists of merged blocks per placement, whatever the number
// of conflicts, at the price of a few dozen list updates per placement: it wins once
// records conflict with many others on average.
Engine ChooseEngine(const Problem& problem) {
  const std::size_t n = problem.size();
  std::uint64_t conflicts = 0;
  for (std::uint64_t c : ConflictCounts(problem)) conflicts += c;
  if (n > 4096) return conflicts > kTreeFromConflicts * n ? Engine::kTree : Engine::kIndex;
  return static_cast<std::uint64_t>(n) * n < 16 * conflicts ? Engine::kList : Engine::kIndex;
}

}  // namespace

Placer::Placer(const Problem& problem, const CompactSteps& steps, const ConflictIndex& index,
               bool keep_empty, Engine engine)
    : problem_(problem), index_(index) {
  engine_ = engine == Engine::kAuto ? ChooseEngine(problem) : engine;
  records_.resize(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i)
    records_[i] = {steps.first[i], steps.last[i],           index.PositionOf(i),
                   false,          problem.records[i].size, 0};
  if (engine_ != Engine::kList) {
    slots_.reserve(index.entries().size());
    for (const ConflictIndex::Entry& e : index.entries())
      slots_.push_back({e.first, e.last, 0, 0, problem.records[e.record].size});
  }
  if (engine_ == Engine::kTree) tree_.emplace(steps.count);
  Reset(keep_empty);
}

void Placer::Reset(bool keep_empty) {
  keep_empty_ = keep_empty;
  for (Record& record : records_) {
    record.placed = false;
    record.offset = 0;
  }
  if (engine_ != Engine::kList) {
    for (Slot& slot : slots_) slot.order = 0;
  } else {
    slots_.clear();
  }
  if (tree_) tree_->Clear();
  tree_unaligned_ = !keep_empty;
  placed_count_ = 0;
  arena_ = 0;
  for (std::size_t i = 0; i < problem_.size(); ++i)
    if (problem_.IsFixed(i)) Register(i, *problem_.fixed_offsets[i]);
}

std::vector<Bytes> Placer::Offsets() const {
  std::vector<Bytes> out(records_.size());
  for (std::size_t i = 0; i < records_.size(); ++i) out[i] = records_[i].offset;
  return out;
}

void Placer::Register(std::size_t r, Bytes offset) {
  Record& record = records_[r];
  record.placed = true;
  record.offset = offset;
  arena_ = std::max(arena_, offset + record.size);
  if (record.size == 0 && !keep_empty_) return;  // placed, but invisible to later records
  const std::uint32_t order = ++placed_count_;
  if (engine_ != Engine::kList) {
    Slot& slot = slots_[record.position];
    slot.order = order;
    slot.offset = offset;
    if (tree_) {
      const Bytes end = offset + record.size;
      tree_->Add(record.first, record.last, offset,
                 tree_unaligned_ ? end : AlignUp(end, problem_.alignment));
    }
  } else {
    const Slot slot{record.first, record.last, order, offset, record.size};
    slots_.insert(std::upper_bound(slots_.begin(), slots_.end(), offset,
                                   [](Bytes o, const Slot& e) { return o < e.offset; }),
                  slot);
  }
}

Bytes Placer::Place(std::size_t r, Fit fit) {
  const Record& record = records_[r];
  if (record.size == 0 && fit == Fit::kArena) {
    Register(r, 0);  // SimpleMemoryArena: empty tensors sit at 0 and are not recorded
    return 0;
  }
  const std::int32_t first = record.first, last = record.last;
  ++reads_;
  if (TreeAnswers(fit, record.size)) {
    // Counted as the index engine would read, so budgets in reads mean the same work.
    index_.ForEachRun(first, last,
                      [&](std::uint32_t begin, std::uint32_t end) { reads_ += end - begin; });
    lists_.clear();
    tree_->ForEachList(first, last, [&](std::span<const OccupancyTree::Block> blocks) {
      lists_.push_back(blocks);
    });
    const Bytes offset = ChooseOffsetInBlocks(fit, lists_, record.size, problem_.alignment);
    Register(r, offset);
    return offset;
  }
  // Copies every slot read and keeps those that conflict, without branching on them
  // (whether a slot conflicts is a coin flip the processor cannot predict).
  std::size_t count = 0;
  auto collect = [&](const Slot* begin, const Slot* end) {
    const auto needed = count + static_cast<std::size_t>(end - begin);
    reads_ += static_cast<std::uint64_t>(end - begin);
    if (scratch_.size() < needed) scratch_.resize(std::max(needed, 2 * scratch_.size()));
    Neighbour* out = scratch_.data() + count;
    for (const Slot* slot = begin; slot != end; ++slot) {
      *out = {slot->offset, slot->order, slot->size};
      out += (slot->order != 0) & (slot->last >= first) & (slot->first <= last);
    }
    count = static_cast<std::size_t>(out - scratch_.data());
  };
  const Slot* slots = slots_.data();
  if (engine_ == Engine::kList) {
    collect(slots, slots + slots_.size());  // already in offset order
  } else {
    index_.ForEachRun(first, last, [&](std::uint32_t begin, std::uint32_t end) {
      collect(slots + begin, slots + end);
    });
    std::sort(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(count),
              [](const Neighbour& a, const Neighbour& b) {
                return a.offset != b.offset ? a.offset < b.offset : a.order < b.order;
              });
  }
  const Bytes offset =
      ChooseOffset(fit, std::span(scratch_.data(), count), record.size, problem_.alignment);
  Register(r, offset);
  return offset;
}

bool Placer::TreeAnswers(Fit fit, Bytes size) const {
  // Empty records fit the empty gaps between touching records, which unions lose; a
  // placement whose rule reads ends the other way than the tree keeps them is rare.
  return tree_ && tree_unaligned_ == (fit == Fit::kArena) && (size > 0 || fit == Fit::kAboveAll);
}

void Placer::Prefetch(std::size_t r, int stage) const {
  const Record& record = records_[r];
  if (stage == 0) {
    __builtin_prefetch(&record);
  } else if (stage == 1) {
    index_.PrefetchBlocks(record.first, record.last);
    __builtin_prefetch(&slots_[record.position], 1);
  } else {
    // Every cache line of every run (runs are short; a long one is read sequentially,
    // which the hardware prefetches by itself after a few lines).
    index_.ForEachRun(record.first, record.last, [&](std::uint32_t begin, std::uint32_t end) {
      const char* from = reinterpret_cast<const char*>(slots_.data() + begin);
      const char* to = reinterpret_cast<const char*>(slots_.data() + end);
      to = std::min(to, from + 8 * 64);
      for (const char* line = from; line < to; line += 64) __builtin_prefetch(line);
    });
  }
}

bool Placer::PlaceAll(std::span<const std::size_t> order, Fit fit, Bytes give_up_above) {
  return PlaceAllUnless(order, fit, [&] { return arena_ > give_up_above; });
}

bool Placer::PlaceAll(std::span<const std::size_t> order, Fit fit,
                      const std::atomic<Bytes>& give_up_above) {
  return PlaceAllUnless(order, fit,
                        [&] { return arena_ > give_up_above.load(std::memory_order_relaxed); });
}

template <class GiveUp>
bool Placer::PlaceAllUnless(std::span<const std::size_t> order, Fit fit, GiveUp&& give_up) {
  // A few placements ahead per stage: fetch the record, then the index blocks its query
  // reads, then the entries of each run.
  constexpr std::size_t kAhead = 4;
  const bool fetch = engine_ == Engine::kIndex;
  const std::size_t m = order.size();
  for (std::size_t k = 0; k < m; ++k) {
    if (fetch) {
      if (k + 3 * kAhead < m) Prefetch(order[k + 3 * kAhead], 0);
      if (k + 2 * kAhead < m) Prefetch(order[k + 2 * kAhead], 1);
      if (k + kAhead < m) Prefetch(order[k + kAhead], 2);
    }
    Place(order[k], fit);
    if (give_up()) return false;
  }
  return true;
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
  placer.PlaceAll(order, fit);
  return MakeOffsetPlan(problem, std::move(strategy), placer.Offsets());
}

}  // namespace memplan::offsets

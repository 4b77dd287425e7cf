#pragma once
// The machinery every greedy offset strategy shares: records are placed one at a time,
// each looking only at the already placed records it conflicts with, walked in offset
// order. Finding those records through an index over steps (instead of scanning every
// placed record) keeps the greedy strategies near O(n log n) on real workloads while
// giving exactly the offsets of the peers' O(n^2) loops.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "memplan/plan.h"

namespace memplan::offsets_internal {

// The records' steps renumbered densely (0..count-1) so an index over steps stays small
// when steps are sparse (MiniMalloc times run to 10^6 for a few hundred buffers). The
// renumbering keeps the order of every first/last value, so it keeps every conflict, and
// a run of steps where no record starts or ends becomes one step, so skylines over steps
// keep their shape.
struct CompactSteps {
  std::vector<std::int32_t> first;  // renumbered first step per record
  std::vector<std::int32_t> last;   // renumbered last step per record
  std::int32_t count = 0;           // steps 0..count-1 are in use
};
CompactSteps Compact(const Problem& problem);

// For a range of steps, every record (placed or not) whose interval meets it. Built once
// per problem; records are grouped by lifetime length in powers of two and, inside a
// group, in blocks of steps as long as the group's shortest lifetime, so a query reads
// one contiguous run per group and touches few records that do not meet the range.
class ConflictIndex {
 public:
  explicit ConflictIndex(const CompactSteps& steps);

  // Calls visit(record) for every record whose interval meets [first, last].
  template <class Visit>
  void ForEachMeeting(std::int32_t first, std::int32_t last, Visit&& visit) const {
    for (const Group& g : groups_) {
      const std::int64_t reach = (std::int64_t{2} << g.shift) - 2;  // longest lifetime - 0
      const std::int64_t lo_step = std::max<std::int64_t>(0, first - reach);
      const std::size_t lo = static_cast<std::size_t>(lo_step >> g.shift);
      const std::size_t hi =
          std::min(static_cast<std::size_t>(last >> g.shift), g.block_start.size() - 2);
      if (lo > hi) continue;
      for (std::uint32_t e = g.block_start[lo]; e < g.block_start[hi + 1]; ++e) {
        const Entry& entry = entries_[e];
        if (entry.last >= first && entry.first <= last) visit(entry.record);
      }
    }
  }

 private:
  // One record in the index, with its steps copied so a query reads contiguous memory.
  struct Entry {
    std::int32_t first;    // renumbered first step
    std::int32_t last;     // renumbered last step
    std::uint32_t record;  // the record's index in the problem
  };
  // Records whose lifetime length + 1 lies in [2^shift, 2^(shift+1)).
  struct Group {
    int shift = 0;                           // log2 of the block length in steps
    std::vector<std::uint32_t> block_start;  // entries of block b: [start[b], start[b+1])
  };
  std::vector<Entry> entries_;  // every record, grouped, then by block
  std::vector<Group> groups_;   // the non-empty groups
};

// An already placed record as a fit rule sees it.
struct Neighbour {
  Bytes offset;         // where it starts
  std::uint32_t order;  // when it was placed; breaks ties between equal offsets
  Bytes size;           // its bytes
};

// How a record picks its offset among the placed records it conflicts with, walked in
// offset order (equal offsets in placement order).
enum class Fit {
  // TensorFlow Lite GPU (strategies.md 2.2): the smallest gap that fits, gap starts at
  // the aligned running maximum of ends; else above them all.
  kBest,
  // The lowest gap that fits, same gaps (TensorFlow Lite Micro's first fit when sizes are
  // rounded up to the alignment, strategies.md 2.3); else above them all.
  kFirst,
  // TensorFlow Lite CPU's SimpleMemoryArena (2.4): aligned candidate starts, fit measured
  // from the unaligned running end, stop at a perfect fit.
  kArena,
  // No gap reuse (TVM USMP greedy, 2.9): just above the highest conflicting record.
  kTop,
};

// Offset for `size` bytes among `placed` (sorted by offset, then order) under `fit`.
Bytes ChooseOffset(Fit fit, std::span<const Neighbour> placed, Bytes size, Bytes alignment);

// Places records one by one. Fixed records are placed first, at their offsets, in record
// order. Reusable: Reset() starts a new plan over the same problem and index.
class Placer {
 public:
  // Records of size 0 take part in later placements only when `keep_empty` (TensorFlow
  // Lite CPU forgets them). The fixed records are placed at once.
  Placer(const Problem& problem, const CompactSteps& steps, const ConflictIndex& index,
         bool keep_empty = true);

  // Forgets every placement, then places the fixed records again.
  void Reset(bool keep_empty = true);

  // Places record r (not fixed, not yet placed) with `fit`; returns its offset.
  Bytes Place(std::size_t r, Fit fit);

  bool IsPlaced(std::size_t r) const { return order_[r] != 0; }
  // The largest offset + size so far.
  Bytes ArenaSoFar() const { return arena_; }
  const std::vector<Bytes>& offsets() const { return offsets_; }
  std::vector<Bytes> TakeOffsets() { return std::move(offsets_); }

 private:
  void Register(std::size_t r, Bytes offset);

  const Problem& problem_;
  const CompactSteps& steps_;
  const ConflictIndex& index_;
  bool keep_empty_ = true;
  std::vector<Bytes> offsets_;
  std::vector<std::uint32_t> order_;  // 0 = not placed, else 1 + placement number
  std::uint32_t placed_count_ = 0;
  Bytes arena_ = 0;
  std::vector<Neighbour> scratch_;  // the conflicting placed records of one Place call
};

// Indices of the records that are not fixed, in record order.
std::vector<std::size_t> OnlineRecords(const Problem& problem);

// The problem's records placed in `order` (online records only) with `fit`.
OffsetPlan PlaceInOrder(const Problem& problem, std::span<const std::size_t> order, Fit fit,
                        std::string strategy);

}  // namespace memplan::offsets_internal

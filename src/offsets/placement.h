#pragma once
// The machinery every greedy offset strategy shares: records are placed one at a time,
// each looking only at the already placed records it conflicts with, walked in offset
// order. Finding those records through an index over steps (instead of scanning every
// placed record) keeps the greedy strategies near O(n log n) on real workloads while
// giving exactly the offsets of the peers' O(n^2) loops.
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "memplan/plan.h"
#include "src/offsets/large_buffer.h"
#include "src/offsets/occupancy_tree.h"

namespace memplan::offsets {

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

// The bytes live at each renumbered step 0..steps.count-1 (every record's size rounded
// up to `alignment`; 1 keeps them as they are). O(n + steps).
std::vector<Bytes> LiveBytes(const Problem& problem, const CompactSteps& steps, Bytes alignment);

// For a range of steps, every record (placed or not) whose interval meets it. Built once
// per problem; records are grouped by lifetime length in powers of two and, inside a
// group, in blocks of steps as long as the group's shortest lifetime, so a query reads
// one contiguous run per group and touches few records that do not meet the range.
class ConflictIndex {
 public:
  // Lifetime lengths in one group span a factor of 2^kGroupBits: fewer groups mean fewer
  // runs to read per query, wider ones more records read that do not meet it.
  static constexpr int kGroupBits = 3;

  explicit ConflictIndex(const CompactSteps& steps);

  // One record in the index, with its steps copied so a query reads contiguous memory.
  struct Entry {
    std::int32_t first;    // renumbered first step
    std::int32_t last;     // renumbered last step
    std::uint32_t record;  // the record's index in the problem
  };

  // Calls visit(begin, end) for runs of entry positions that together hold every record
  // meeting [first, last] (and a few that do not: callers check the steps).
  template <class Visit>
  void ForEachRun(std::int32_t first, std::int32_t last, Visit&& visit) const {
    for (const Group& g : groups_) {
      const auto [lo, hi] = Blocks(g, first, last);
      if (lo <= hi) visit(g.block_start[lo], g.block_start[hi + 1]);
    }
  }

  // Starts fetching the index blocks a query for [first, last] reads.
  void PrefetchBlocks(std::int32_t first, std::int32_t last) const {
    for (const Group& g : groups_) {
      const auto [lo, hi] = Blocks(g, first, last);
      __builtin_prefetch(g.block_start.data() + lo);
      __builtin_prefetch(g.block_start.data() + hi + 1);
    }
  }

  // Calls visit(record) for every record whose interval meets [first, last].
  template <class Visit>
  void ForEachMeeting(std::int32_t first, std::int32_t last, Visit&& visit) const {
    ForEachRun(first, last, [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t e = begin; e < end; ++e) {
        const Entry& entry = entries_[e];
        if (entry.last >= first && entry.first <= last) visit(entry.record);
      }
    });
  }

  const LargeVector<Entry>& entries() const { return entries_; }
  // Where record r sits in entries().
  std::uint32_t PositionOf(std::size_t r) const { return position_[r]; }

 private:
  // Records whose lifetime length + 1 lies in [2^shift, 2^(shift + kGroupBits)).
  struct Group {
    int shift = 0;                           // log2 of the block length in steps
    std::int64_t reach = 0;                  // the longest lifetime (last - first) in it
    LargeVector<std::uint32_t> block_start;  // entries of block b: [start[b], start[b+1])
  };
  // The blocks [lo, hi] of group g holding every record that meets [first, last].
  static std::pair<std::size_t, std::size_t> Blocks(const Group& g, std::int32_t first,
                                                    std::int32_t last) {
    const std::int64_t lo_step = std::max<std::int64_t>(0, first - g.reach);
    return {static_cast<std::size_t>(lo_step >> g.shift),
            std::min(static_cast<std::size_t>(last >> g.shift), g.block_start.size() - 2)};
  }

  LargeVector<Entry> entries_;           // every record, grouped, then by block
  std::vector<std::uint32_t> position_;  // entry position of each record
  std::vector<Group> groups_;            // the non-empty groups
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
  // TensorFlow Lite GPU's best fit (docs/offsets.md, greedy_by_size): the smallest gap that
  // fits, gap starts at the aligned running maximum of ends; else above them all.
  kSmallestGap,
  // The lowest gap that fits, same gaps (TensorFlow Lite Micro's first fit when sizes are
  // rounded up to the alignment: docs/offsets.md, tflm_greedy); else above them all.
  kLowestGap,
  // TensorFlow Lite CPU's SimpleMemoryArena (docs/offsets.md, tflite_cpu): aligned candidate
  // starts, fit measured from the unaligned running end, stop at a perfect fit.
  kArena,
  // No gap reuse (docs/offsets.md, tvm_greedy): just above the highest conflicting record.
  kAboveAll,
};

// Offset for `size` bytes among `placed` (sorted by offset, then order) under `fit`.
Bytes ChooseOffset(Fit fit, std::span<const Neighbour> placed, Bytes size, Bytes alignment);

// How a Placer finds the placed records a new record conflicts with.
enum class Engine {
  kAuto,   // kList when most records conflict with many others, else kIndex
  kIndex,  // query the ConflictIndex, sort the hits by offset: good for sparse conflicts
  kList,   // walk every placed record in offset order (the peers' loop): good when dense
  // walk the address blocks an OccupancyTree holds for the record's steps, already in
  // offset order and merged: good when records conflict with thousands of others
  kTree,
};

// The offset `fit` picks for `size` bytes (size > 0, or any size under kTop) given
// sorted block lists whose union is the union of the conflicting placed records'
// [offset, end) ranges, ends aligned (or, for kArena, unaligned). The same offset as
// ChooseOffset over those records: every rule reads only the gaps of that union
// (docs/scale.md).
Bytes ChooseOffsetInBlocks(Fit fit, std::span<const std::span<const OccupancyTree::Block>> lists,
                           Bytes size, Bytes alignment);

// Above this many conflicts per record on average (and 4096 records), kAuto picks kTree.
inline constexpr std::uint64_t kTreeFromConflicts = 64;

// How many other records each record conflicts with. O(n log n).
std::vector<std::uint64_t> ConflictCounts(const Problem& problem);

// Places records one by one. Fixed records are placed first, at their offsets, in record
// order. Reusable: Reset() starts a new plan over the same problem and index. Both
// engines give the same offsets.
class Placer {
 public:
  // Records of size 0 take part in later placements only when `keep_empty` (TensorFlow
  // Lite CPU forgets them). The fixed records are placed at once.
  Placer(const Problem& problem, const CompactSteps& steps, const ConflictIndex& index,
         bool keep_empty = true, Engine engine = Engine::kAuto);

  // Forgets every placement, then places the fixed records again.
  void Reset(bool keep_empty = true);

  // Places record r (not fixed, not yet placed) with `fit`; returns its offset.
  Bytes Place(std::size_t r, Fit fit);

  // Places `order` with `fit`, fetching what later placements will read ahead of time
  // (large problems wait on memory, not on arithmetic). Stops early, returning false, as
  // soon as the arena exceeds `give_up_above`.
  bool PlaceAll(std::span<const std::size_t> order, Fit fit, Bytes give_up_above = ~Bytes{0});
  // The same with a limit other threads may lower while it runs.
  bool PlaceAll(std::span<const std::size_t> order, Fit fit,
                const std::atomic<Bytes>& give_up_above);

  // Places record r at `offset` without looking: replays a known plan's prefix, so a
  // search that changes an order late need not recompute its start.
  void Adopt(std::size_t r, Bytes offset) { Register(r, offset); }

  Engine engine() const { return engine_; }
  bool IsPlaced(std::size_t r) const { return records_[r].placed; }
  Bytes OffsetOf(std::size_t r) const { return records_[r].offset; }
  // The largest offset + size so far.
  Bytes ArenaSoFar() const { return arena_; }
  // Records read by all placements so far (a measure of work that, unlike time, is
  // the same on every machine), plus one per placement.
  std::uint64_t Reads() const { return reads_; }
  // Every record's offset (0 for those not placed).
  std::vector<Bytes> Offsets() const;

 private:
  void Register(std::size_t r, Bytes offset);
  template <class GiveUp>
  bool PlaceAllUnless(std::span<const std::size_t> order, Fit fit, GiveUp&& give_up);
  // Starts fetching what placing record r will read; `stage` 0 is the earliest.
  void Prefetch(std::size_t r, int stage) const;
  // Whether the tree can answer a placement of `size` bytes with `fit` (kTree only).
  bool TreeAnswers(Fit fit, Bytes size) const;

  // A record as the placer keeps it: everything one placement reads about it.
  struct Record {
    std::int32_t first;      // renumbered first step
    std::int32_t last;       // renumbered last step
    std::uint32_t position;  // its entry in the index (and in slots_)
    bool placed;             // has an offset
    Bytes size;              // its bytes
    Bytes offset;            // where it starts, once placed
  };
  // A placed record in index order (kIndex) or offset order (kList): what a query reads.
  struct Slot {
    std::int32_t first;   // renumbered first step
    std::int32_t last;    // renumbered last step
    std::uint32_t order;  // 0 = not placed (or invisible), else 1 + placement number
    Bytes offset;         // where it starts, once placed
    Bytes size;           // its bytes
  };

  const Problem& problem_;
  const ConflictIndex& index_;
  bool keep_empty_ = true;
  Engine engine_ = Engine::kIndex;
  LargeVector<Record> records_;     // by record index
  LargeVector<Slot> slots_;         // kIndex: one per index entry; kList: the placed, sorted
  std::uint32_t placed_count_ = 0;  // placements so far (visible ones)
  Bytes arena_ = 0;                 // the largest offset + size so far
  std::uint64_t reads_ = 0;         // see Reads()
  std::vector<Neighbour> scratch_;  // room for the conflicting placed records of one Place
  // kTree: the placed records' blocks, ends aligned unless the placements since the last
  // Reset forget empty records (TensorFlow Lite CPU's rule, whose gaps end unaligned).
  std::optional<OccupancyTree> tree_;
  bool tree_unaligned_ = false;
  std::vector<std::span<const OccupancyTree::Block>> lists_;  // one Place's block lists
};

// Indices of the records that are not fixed, in record order.
std::vector<std::size_t> OnlineRecords(const Problem& problem);

// The problem's records placed in `order` (online records only) with `fit`.
OffsetPlan PlaceInOrder(const Problem& problem, std::span<const std::size_t> order, Fit fit,
                        std::string strategy);

}  // namespace memplan::offsets

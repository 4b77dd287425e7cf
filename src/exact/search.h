#pragma once
// One depth-first branch and bound: does every free buffer fit below `capacity`?
//
// It enumerates canonical plans only: every buffer sits at its lowest aligned start
// above the placed buffers it overlaps in time (clear of fixed records), and buffers
// are placed in non-decreasing order of offset, ties in the order of `rank`. Any plan
// can be pushed down into such a one, so the search is complete. Each node applies:
//  - a dominance rule: the next placement must start below the lowest possible top of
//    every unplaced buffer (otherwise that buffer could drop into the gap below it);
//  - release times: an unplaced buffer that can no longer sit at its lowest start (the
//    placements have passed it) must rest on a buffer placed later, so it starts at
//    least one smallest size above the next placement offset;
//  - per section, the lowest release of its unplaced buffers plus their total size must
//    fit below the capacity (the section that failed last is checked first);
//  - decomposition: when no unplaced buffer crosses a boundary between the sections of
//    the current part, each side is a problem of its own, searched from offset 0 with
//    its buffers ranked afresh; a failing side fails the node;
//  - a table of refuted states (the unplaced buffers and their lowest starts, which are
//    all the future depends on), keyed by a hash kept up to date at each placement,
//    valid for any later state with the same key and a placement offset at least as high;
//  - "hatless" pruning: after a buffer that overlaps no unplaced buffer fails, its
//    siblings are not tried.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/exact/instance.h"

namespace memplan::exact {

// Paces a search: called at every node, it may block (rounds of a portfolio) and
// returns false to stop the search.
class Pacer {
 public:
  virtual ~Pacer() = default;
  virtual bool Tick() = 0;
};

class Search {
 public:
  enum class Outcome { kFound, kExhausted, kStopped };

  // With `keys` (a Preorder ordering), each independent part found by decomposition is
  // ranked afresh by those keys, T counting only what is still unplaced.
  Search(const Instance& instance, std::vector<int> rank, Units capacity,
         std::string_view keys = {});

  // Without the table of refuted states the search is plain (tests compare the two).
  void set_remember_refuted(bool remember) { remember_refuted_ = remember; }
  // For tests: count the plans the search reaches instead of stopping at the first (Run
  // then ends kExhausted). A sound table of refuted states leaves the count unchanged.
  void set_enumerate(bool enumerate) { enumerate_ = enumerate; }
  std::uint64_t solutions() const { return solutions_; }

  // Runs the search to its end or until the pacer stops it.
  Outcome Run(Pacer& pacer);

  // The start of every free buffer in units (valid after kFound).
  const std::vector<Units>& offsets() const { return offset_; }

  // How many nodes the table of refuted states settled (for tests and tuning).
  std::uint64_t refuted_hits() const { return refuted_hits_; }

 private:
  struct Candidate {
    Units start;  // where the buffer goes (its lowest start)
    int rank;     // tie-break: the static ordering
    int buffer;
  };
  struct Placement {
    int buffer;
    std::size_t start_mark;  // size of start_trail_ before the placement
    std::size_t floor_mark;  // size of floor_trail_ before the placement
  };
  struct Refuted {
    std::uint64_t key = 0;      // hash of the state (0: empty slot)
    Units start = 0;            // placement offset at which the state was refuted
    int rank = 0;               // and the rank of the buffer placed there
    std::uint64_t ranking = 0;  // in this ranking (see ranking_)
  };
  struct Stopped {};

  // A part of the problem: its unplaced buffers and the range of sections it owns.
  struct Part {
    std::vector<int> buffers;
    int lo = 0, hi = -1;
  };

  // `key` identifies the state: the sum of Term over the active buffers.
  bool Solve(std::span<const int> active, Units start, int rank, std::size_t depth, int lo, int hi,
             std::uint64_t key);
  bool Evaluate(std::span<const int> active, Units start, int rank, std::vector<Candidate>& out,
                int lo, int hi);
  // Solves independent parts one after another, each in its own canonical order; undoes
  // their placements and fails when one fails.
  bool SolveParts(const std::vector<Part>& parts, std::size_t depth);
  // Remembers that the state `key` at `start` failed, for `rank` (or for every rank when
  // no active buffer waits at `start` for a lower one), unless solutions were counted.
  void RememberRefuted(std::size_t slot, std::uint64_t key, std::span<const int> active,
                       Units start, int rank, std::uint64_t solutions_before);
  // Section checks on the releases in release_ (each records a failing section as hot).
  bool Fits(int s, Units lowest_start) const;
  bool SectionFits(int s);
  bool SectionsFit(std::span<const int> active, int lo, int hi);
  bool Decompose(std::span<const int> active, int lo, int hi, std::vector<Part>& parts);
  // The future of a search state depends only on its unplaced buffers and their lowest
  // starts (and the placement offset and rank, kept beside the key).
  std::uint64_t Term(std::size_t b, Units low) const;
  std::uint64_t StateKey(std::span<const int> active) const;
  // Does a state refuted as `r` refute the same state reached at r's offset with `rank`?
  bool Covers(const Refuted& r, int rank) const;
  // Places b at start; returns the key of the state it leads to from one with `key`.
  std::uint64_t Place(int b, Units start, std::uint64_t key);
  void Undo(std::size_t placements);

  const Instance& in_;
  std::vector<int> rank_;
  std::string keys_;
  std::uint64_t ranking_ = 0;  // which ranking rank_ holds (0: the initial one)
  Units capacity_;
  Pacer* pacer_ = nullptr;

  std::vector<char> placed_;
  std::vector<Units> offset_;     // start of each placed buffer
  std::vector<Units> low_;        // lowest aligned start of each unplaced buffer
  std::vector<Units> floor_;      // per section: highest top of its placed buffers
  std::vector<Units> remaining_;  // per section: total size of its unplaced buffers
  std::vector<int> crossing_;     // per boundary s|s+1: unplaced buffers across it

  std::vector<std::pair<int, Units>> start_trail_;  // (buffer, old lowest start)
  std::vector<Units> floor_trail_;                  // old floors of placed spans
  std::vector<Placement> placements_;

  std::vector<Refuted> refuted_;
  std::uint64_t refuted_hits_ = 0;
  bool remember_refuted_ = true;
  bool enumerate_ = false;
  std::uint64_t solutions_ = 0;
  std::vector<std::uint64_t> buffer_hash_;

  // Scratch reused by depth so nodes allocate nothing once warmed up.
  std::vector<std::vector<Candidate>> candidates_;
  std::vector<std::vector<int>> rest_;
  std::vector<std::vector<Part>> parts_;
  std::vector<Units> release_;      // per unplaced buffer: the lowest start it can still get
  std::vector<Units> section_low_;  // per section: the lowest release of its buffers
  int hot_section_ = -1;            // the section that failed last
  std::vector<int> part_of_;
};

}  // namespace memplan::exact

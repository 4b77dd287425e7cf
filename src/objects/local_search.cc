// The local search behind objects/best. Objects are sets of pairwise disjoint
// intervals, kept sorted by first step; an object's size is its largest record.
#include "src/objects/local_search.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace memplan::objects {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// A signed change of the total, in bytes.
using Delta = std::int64_t;

Delta Diff(Bytes after, Bytes before) {
  return static_cast<Delta>(after) - static_cast<Delta>(before);
}

class Search {
 public:
  Search(const std::vector<UsageRecord>& records, std::vector<ObjectId> ids, Bytes lower_bound,
         std::uint64_t budget)
      : rec_(records), of_(std::move(ids)), lower_(lower_bound), budget_(budget) {
    std::size_t k = 0;
    for (ObjectId o : of_) k = std::max(k, o + 1);
    members_.resize(k);
    for (std::size_t i = 0; i < rec_.size(); ++i) members_[of_[i]].push_back(i);
    for (auto& m : members_)
      std::sort(m.begin(), m.end(),
                [&](std::size_t a, std::size_t b) { return First(a) < First(b); });
    size_.resize(k);
    for (ObjectId o = 0; o < k; ++o) SetSize(o, Largest(o, kNone));
  }

  std::vector<ObjectId> Run() {
    bool improved = true;
    while (improved && !Done()) {
      improved = false;
      improved |= MergePass();
      improved |= FlipPass();
      improved |= MovePass();
      improved |= SwapPass();
      improved |= LowerPass();
    }
    return of_;
  }

 private:
  Step First(std::size_t r) const { return rec_[r].first; }
  Step Last(std::size_t r) const { return rec_[r].last; }
  Bytes Size(std::size_t r) const { return rec_[r].size; }

  Bytes Total() const { return total_; }

  // Sets object o's size, keeping the total.
  void SetSize(ObjectId o, Bytes size) {
    total_ = total_ - size_[o] + size;
    size_[o] = size;
  }
  bool Done() const { return work_ >= budget_ || Total() <= lower_; }
  std::size_t Objects() const { return members_.size(); }

  // The largest record of object o, leaving out `skip`; 0 if none.
  Bytes Largest(ObjectId o, std::size_t skip) {
    Bytes best = 0;
    work_ += members_[o].size();
    for (std::size_t r : members_[o])
      if (r != skip) best = std::max(best, Size(r));
    return best;
  }

  // Whether record r fits object o (no conflict), ignoring member `skip`.
  bool Fits(ObjectId o, std::size_t r, std::size_t skip = kNone) {
    const auto& m = members_[o];
    work_ += 8;
    auto it = std::lower_bound(m.begin(), m.end(), First(r),
                               [&](std::size_t x, Step first) { return First(x) < first; });
    // Members after r: the first one (other than skip) must start after r ends.
    for (auto next = it; next != m.end(); ++next) {
      if (*next == skip) continue;
      if (First(*next) <= Last(r)) return false;
      break;
    }
    // Members before r: the last one (other than skip) must end before r starts.
    for (auto prev = it; prev != m.begin();) {
      --prev;
      if (*prev == skip) continue;
      if (Last(*prev) >= First(r)) return false;
      break;
    }
    return true;
  }

  void Insert(ObjectId o, std::size_t r) {
    auto& m = members_[o];
    work_ += m.size() / 8 + 1;
    m.insert(std::lower_bound(m.begin(), m.end(), First(r),
                              [&](std::size_t x, Step first) { return First(x) < first; }),
             r);
    of_[r] = o;
    SetSize(o, std::max(size_[o], Size(r)));
  }

  void Erase(ObjectId o, std::size_t r) {
    auto& m = members_[o];
    work_ += m.size() / 8 + 1;
    m.erase(std::find(m.begin(), m.end(), r));
    SetSize(o, Largest(o, kNone));
  }

  // Whether two objects' records are pairwise disjoint (a merge-walk in step order).
  bool Disjoint(ObjectId a, ObjectId b) {
    const auto& x = members_[a];
    const auto& y = members_[b];
    work_ += x.size() + y.size();
    std::size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
      if (First(x[i]) <= First(y[j])) {
        if (Last(x[i]) >= First(y[j])) return false;
        ++i;
      } else {
        if (Last(y[j]) >= First(x[i])) return false;
        ++j;
      }
    }
    return true;
  }

  // Merges every pair of objects whose records never meet (saves the smaller size).
  bool MergePass() {
    bool improved = false;
    for (ObjectId a = 0; a < Objects() && !Done(); ++a) {
      if (members_[a].empty()) continue;
      for (ObjectId b = a + 1; b < Objects() && !Done(); ++b) {
        if (members_[b].empty() || !Disjoint(a, b)) continue;
        std::vector<std::size_t> merged;
        std::merge(members_[a].begin(), members_[a].end(), members_[b].begin(), members_[b].end(),
                   std::back_inserter(merged),
                   [&](std::size_t x, std::size_t y) { return First(x) < First(y); });
        for (std::size_t r : members_[b]) of_[r] = a;
        members_[a] = std::move(merged);
        members_[b].clear();
        SetSize(a, std::max(size_[a], size_[b]));
        SetSize(b, 0);
        improved = true;
      }
    }
    return improved;
  }

  // Two objects' records form runs that overlap one another alternately (connected
  // components of their overlap graph); each run can be flipped between the two
  // objects. Putting every run's larger side with the run holding the largest record
  // minimises the pair's total.
  bool FlipPass() {
    bool improved = false;
    for (ObjectId a = 0; a < Objects() && !Done(); ++a) {
      if (members_[a].empty()) continue;
      for (ObjectId b = a + 1; b < Objects() && !Done(); ++b)
        if (!members_[b].empty() && FlipPair(a, b)) improved = true;
    }
    return improved;
  }

  bool FlipPair(ObjectId a, ObjectId b) {
    std::vector<std::size_t> merged;
    std::merge(members_[a].begin(), members_[a].end(), members_[b].begin(), members_[b].end(),
               std::back_inserter(merged),
               [&](std::size_t x, std::size_t y) { return First(x) < First(y); });
    work_ += merged.size();
    // Runs: [start, end) ranges of `merged`, with the largest size on each side.
    struct Run {
      std::size_t begin, end;
      Bytes in_a = 0, in_b = 0;
    };
    std::vector<Run> runs;
    Step reach = std::numeric_limits<Step>::min();
    for (std::size_t p = 0; p < merged.size(); ++p) {
      const std::size_t r = merged[p];
      if (runs.empty() || First(r) > reach) runs.push_back({p, p, 0, 0});
      Run& run = runs.back();
      run.end = p + 1;
      (of_[r] == a ? run.in_a : run.in_b) = std::max(of_[r] == a ? run.in_a : run.in_b, Size(r));
      reach = std::max(reach, Last(r));
    }
    if (runs.size() < 2) return false;
    // The run with the largest record fixes which side is "large".
    std::size_t top = 0;
    Bytes top_size = 0;
    for (std::size_t c = 0; c < runs.size(); ++c) {
      const Bytes m = std::max(runs[c].in_a, runs[c].in_b);
      if (m > top_size) {
        top_size = m;
        top = c;
      }
    }
    Bytes small_side = std::min(runs[top].in_a, runs[top].in_b);
    for (std::size_t c = 0; c < runs.size(); ++c)
      if (c != top) small_side = std::max(small_side, std::min(runs[c].in_a, runs[c].in_b));
    const Bytes before = size_[a] + size_[b];
    const Bytes after = top_size + small_side;
    if (after >= before) return false;
    // Side "large" goes to object a; a run is flipped when its larger side is in b (for
    // the top run: when the largest record is in b).
    std::vector<std::size_t> into_a, into_b;
    for (std::size_t c = 0; c < runs.size(); ++c) {
      const bool flip = runs[c].in_b > runs[c].in_a;
      for (std::size_t p = runs[c].begin; p < runs[c].end; ++p) {
        const std::size_t r = merged[p];
        const bool goes_to_a = (of_[r] == a) != flip;
        (goes_to_a ? into_a : into_b).push_back(r);
      }
    }
    for (std::size_t r : into_a) of_[r] = a;
    for (std::size_t r : into_b) of_[r] = b;
    members_[a] = std::move(into_a);
    members_[b] = std::move(into_b);
    SetSize(a, Largest(a, kNone));
    SetSize(b, Largest(b, kNone));
    return true;
  }

  // The record that alone makes object o as large as it is (its unique largest), or
  // kNone when two records share the largest size.
  std::size_t UniqueLargest(ObjectId o) {
    std::size_t top = kNone;
    bool shared = false;
    work_ += members_[o].size();
    for (std::size_t r : members_[o]) {
      if (top == kNone || Size(r) > Size(top)) {
        top = r;
        shared = false;
      } else if (Size(r) == Size(top)) {
        shared = true;
      }
    }
    return shared ? kNone : top;
  }

  // Moves an object's unique largest record to the object where the total drops most.
  bool MovePass() {
    bool improved = false;
    for (ObjectId a = 0; a < Objects() && !Done(); ++a) {
      if (members_[a].empty()) continue;
      const std::size_t r = UniqueLargest(a);
      if (r == kNone) continue;
      const Delta gain = Diff(Largest(a, r), size_[a]);
      Delta best = 0;
      ObjectId target = kNone;
      for (ObjectId b = 0; b < Objects(); ++b) {
        if (b == a || members_[b].empty()) continue;
        const Delta d = gain + Diff(std::max(size_[b], Size(r)), size_[b]);
        if (d < best && Fits(b, r)) {
          best = d;
          target = b;
        }
      }
      if (target == kNone) continue;
      Erase(a, r);
      Insert(target, r);
      improved = true;
    }
    return improved;
  }

  // Swaps an object's unique largest record with a smaller record of another object.
  bool SwapPass() {
    bool improved = false;
    for (ObjectId a = 0; a < Objects() && !Done(); ++a) {
      if (members_[a].empty()) continue;
      const std::size_t r = UniqueLargest(a);
      if (r == kNone) continue;
      const Bytes a_rest = Largest(a, r);
      Delta best = 0;
      std::size_t partner = kNone;
      for (ObjectId b = 0; b < Objects() && !Done(); ++b) {
        if (b == a || members_[b].empty()) continue;
        const std::size_t b_top = UniqueLargest(b);
        const Bytes b_rest = b_top == kNone ? size_[b] : Largest(b, b_top);
        for (std::size_t s : members_[b]) {
          if (Size(s) >= Size(r)) continue;
          const Bytes new_a = std::max(a_rest, Size(s));
          const Bytes new_b = std::max(s == b_top ? b_rest : size_[b], Size(r));
          const Delta d = Diff(new_a, size_[a]) + Diff(new_b, size_[b]);
          if (d < best && Fits(b, r, s) && Fits(a, s, r)) {
            best = d;
            partner = s;
          }
        }
      }
      if (partner == kNone) continue;
      const ObjectId b = of_[partner];
      Erase(a, r);
      Erase(b, partner);
      Insert(b, r);
      Insert(a, partner);
      improved = true;
    }
    return improved;
  }

  // Lowers object a to the size of one of its smaller records: its larger records move
  // to the objects that grow least (or together to one new object). Kept if the total
  // drops, else undone. Tries the few highest levels and emptying the object.
  bool LowerPass() {
    constexpr std::size_t kLevels = 8;
    bool improved = false;
    std::vector<ObjectId> by_size;
    for (ObjectId o = 0; o < Objects(); ++o)
      if (!members_[o].empty()) by_size.push_back(o);
    std::stable_sort(by_size.begin(), by_size.end(),
                     [&](ObjectId x, ObjectId y) { return size_[x] > size_[y]; });
    for (ObjectId a : by_size) {
      if (Done()) break;
      std::vector<Bytes> levels;
      for (std::size_t r : members_[a])
        if (Size(r) < size_[a]) levels.push_back(Size(r));
      std::sort(levels.begin(), levels.end(), std::greater<>());
      levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
      if (levels.size() > kLevels) levels.resize(kLevels);
      levels.push_back(0);  // empty the object entirely
      for (Bytes level : levels) {
        if (Done()) break;
        if (TryLower(a, level)) {
          improved = true;
          break;
        }
      }
    }
    return improved;
  }

  bool TryLower(ObjectId a, Bytes level) {
    const Bytes before = Total();
    std::vector<std::size_t> kept, displaced;
    for (std::size_t r : members_[a]) (Size(r) > level ? displaced : kept).push_back(r);
    work_ += members_[a].size();
    const std::vector<std::size_t> original = members_[a];
    const Bytes original_size = size_[a];
    members_[a] = std::move(kept);
    SetSize(a, Largest(a, kNone));
    std::stable_sort(displaced.begin(), displaced.end(),
                     [&](std::size_t x, std::size_t y) { return Size(x) > Size(y); });
    const ObjectId fresh = Objects();
    members_.emplace_back();
    size_.push_back(0);
    for (std::size_t r : displaced) {
      ObjectId target = fresh;
      Bytes growth = std::max(size_[fresh], Size(r)) - size_[fresh];
      for (ObjectId b = 0; b < fresh; ++b) {
        if (b == a || members_[b].empty()) continue;
        const Bytes g = std::max(size_[b], Size(r)) - size_[b];
        if (g < growth && Fits(b, r)) {
          growth = g;
          target = b;
        }
      }
      Insert(target, r);
    }
    if (Total() < before) {
      if (members_[fresh].empty()) {
        members_.pop_back();
        size_.pop_back();  // its size is 0
      }
      return true;
    }
    // Undo: the displaced records leave their new objects; a gets its records back.
    for (std::size_t r : displaced) {
      if (of_[r] != fresh) Erase(of_[r], r);
      of_[r] = a;
    }
    members_[a] = original;
    SetSize(a, original_size);
    SetSize(fresh, 0);
    members_.pop_back();
    size_.pop_back();
    return false;
  }

  const std::vector<UsageRecord>& rec_;
  std::vector<ObjectId> of_;                       // object of each record
  std::vector<std::vector<std::size_t>> members_;  // records of each object, by first step
  std::vector<Bytes> size_;                        // largest record of each object
  Bytes total_ = 0;                                // Σ size_
  Bytes lower_;                                    // stop here: nothing can be smaller
  std::uint64_t budget_;                           // elementary steps allowed
  std::uint64_t work_ = 0;                         // elementary steps taken
};

}  // namespace

std::vector<ObjectId> ImproveObjects(const std::vector<UsageRecord>& records,
                                     std::vector<ObjectId> object_ids, Bytes lower_bound,
                                     std::uint64_t work_budget) {
  if (records.empty()) return object_ids;
  return Search(records, std::move(object_ids), lower_bound, work_budget).Run();
}

}  // namespace memplan::objects

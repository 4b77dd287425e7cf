#include "src/exact/search.h"

#include "src/exact/preorder.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace memplan::exact {

namespace {

constexpr Units kNone = std::numeric_limits<Units>::max();
constexpr std::size_t kRefutedSlots = std::size_t{1} << 16;

// A fixed sequence of well-mixed numbers (splitmix64), so hashes are reproducible.
std::uint64_t Mix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Search::Search(const Instance& instance, std::vector<int> rank, Units capacity,
               std::string_view keys)
    : in_(instance), rank_(std::move(rank)), keys_(keys), capacity_(capacity) {
  const std::size_t n = in_.buffers();
  const auto sections = static_cast<std::size_t>(in_.sections);
  placed_.assign(n, 0);
  offset_.assign(n, 0);
  low_.resize(n);
  floor_.assign(sections, 0);
  remaining_.assign(sections, 0);
  crossing_.assign(sections + 1, 0);
  std::uint64_t seed = 0x6d656d706c616eULL;
  buffer_hash_.resize(n);
  for (auto& h : buffer_hash_) h = Mix(seed);
  for (std::size_t b = 0; b < n; ++b) {
    low_[b] = in_.Lift(static_cast<int>(b), 0);
    for (int s = in_.lo[b]; s <= in_.hi[b]; ++s) {
      const auto si = static_cast<std::size_t>(s);
      remaining_[si] += in_.size[b];
      if (s < in_.hi[b]) ++crossing_[si];
    }
  }
  refuted_.assign(n > 0 ? kRefutedSlots : 1, Refuted{});
  // Every level of the search removes at least one buffer from the active set.
  // (and a level that splits the problem into parts is followed by one that does not).
  candidates_.resize(2 * n + 4);
  rest_.resize(2 * n + 4);
  parts_.resize(2 * n + 4);
  part_of_.resize(sections);
  section_low_.resize(sections);
  release_.resize(n);
}

Search::Outcome Search::Run(Pacer& pacer) {
  pacer_ = &pacer;
  if (in_.fixed_top > capacity_) return Outcome::kExhausted;
  std::vector<int> all(in_.buffers());
  std::iota(all.begin(), all.end(), 0);
  try {
    return Solve(all, 0, -1, 0, 0, in_.sections - 1, StateKey(all)) ? Outcome::kFound
                                                                    : Outcome::kExhausted;
  } catch (const Stopped&) {
    return Outcome::kStopped;
  }
}

bool Search::Solve(std::span<const int> active, Units start, int rank, std::size_t depth, int lo,
                   int hi, std::uint64_t key) {
  if (active.empty()) {
    if (!enumerate_ || placements_.size() < in_.buffers()) return true;
    ++solutions_;  // counted; the search goes on as if it had failed
    return false;
  }
  const std::uint64_t solutions_before = solutions_;
  if (!pacer_->Tick()) throw Stopped{};

  std::vector<Part>& parts = parts_[depth];
  if (Decompose(active, lo, hi, parts)) return SolveParts(parts, depth);

  if (key == 0) key = 1;  // 0 marks an empty slot
  const std::size_t slot = key & (refuted_.size() - 1);
  {
    const Refuted& r = refuted_[slot];
    if (r.key == key && (r.start < start || (r.start == start && Covers(r, rank)))) {
      ++refuted_hits_;
      return false;
    }
  }

  std::vector<Candidate>& candidates = candidates_[depth];
  if (Evaluate(active, start, rank, candidates, lo, hi)) {
    std::vector<int>& rest = rest_[depth];
    for (const Candidate& c : candidates) {
      rest.clear();
      for (int b : active)
        if (b != c.buffer) rest.push_back(b);
      const std::size_t mark = placements_.size();
      const std::uint64_t child_key = Place(c.buffer, c.start, key);
      bool covered = false;  // does an unplaced buffer overlap the one just placed?
      for (int v : in_.overlaps[static_cast<std::size_t>(c.buffer)])
        if (!placed_[static_cast<std::size_t>(v)]) {
          covered = true;
          break;
        }
      if (Solve(rest, c.start, c.rank, depth + 1, lo, hi, child_key)) return true;
      Undo(mark);
      if (!covered) break;
    }
  }
  RememberRefuted(slot, key, active, start, rank, solutions_before);
  return false;
}

bool Search::SolveParts(const std::vector<Part>& parts, std::size_t depth) {
  const std::size_t mark = placements_.size();
  for (const Part& part : parts) {
    // Independent of everything else, a part is a problem of its own: it is searched
    // from offset 0 in its own canonical order (its buffers ranked afresh, T counting
    // what is still unplaced). Every plan of it is reachable that way.
    std::vector<int> saved;
    const std::uint64_t ranking = ranking_;
    if (!keys_.empty()) {
      for (int b : part.buffers) saved.push_back(rank_[static_cast<std::size_t>(b)]);
      RankBuffers(in_, keys_, part.buffers, remaining_, rank_);
      // Refuted states remember a rank, which compares only within one ranking.
      ranking_ = 0;
      for (int b : part.buffers) ranking_ ^= buffer_hash_[static_cast<std::size_t>(b)];
    }
    const bool solved =
        Solve(part.buffers, 0, -1, depth + 1, part.lo, part.hi, StateKey(part.buffers));
    ranking_ = ranking;
    for (std::size_t i = 0; i < saved.size(); ++i)
      rank_[static_cast<std::size_t>(part.buffers[i])] = saved[i];
    if (!solved) {
      Undo(mark);
      return false;
    }
  }
  return true;
}

void Search::RememberRefuted(std::size_t slot, std::uint64_t key, std::span<const int> active,
                             Units start, int rank, std::uint64_t solutions_before) {
  // When no buffer waits at `start` for a lower rank, the rank blocks nothing: the
  // refutation then holds for every rank of any ranking at this offset.
  bool blocks = false;
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    if (low_[b] == start && rank_[b] < rank) {
      blocks = true;
      break;
    }
  }
  if (!blocks) rank = -1;
  Refuted& r = refuted_[slot];
  // (A state below which solutions were counted is not refuted.)
  if (!remember_refuted_ || solutions_ != solutions_before) return;
  if (r.key != key || start < r.start || (start == r.start && rank < 0) ||
      (start == r.start && r.ranking == ranking_ && rank < r.rank))
    r = {key, start, rank, ranking_};
}

bool Search::Evaluate(std::span<const int> active, Units start, int rank,
                      std::vector<Candidate>& out, int lo, int hi) {
  Units min_top = kNone, min_size = kNone, lowest = kNone;
  auto blocked = [&](std::size_t b) {
    return low_[b] < start || (low_[b] == start && rank_[b] < rank);
  };
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    min_top = std::min(min_top, low_[b] + in_.size[b]);
    min_size = std::min(min_size, in_.size[b]);
    if (!blocked(b)) lowest = std::min(lowest, low_[b]);
  }
  // Every later placement starts at `lowest` or above; a buffer whose lowest top is
  // at or below that could drop into the gap under it, so this state is dominated.
  if (lowest == kNone || min_top <= lowest) return false;

  out.clear();
  // A blocked buffer can no longer sit at its lowest start: it must rest on a buffer
  // placed later, so at least one smallest size above the next placement.
  const Units rested = in_.Align(lowest + min_size);
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    const bool is_blocked = blocked(b);
    const Units release =
        !is_blocked ? low_[b] : (in_.any_obstacles ? in_.Lift(bi, lowest + min_size) : rested);
    if (release + in_.size[b] > capacity_) return false;
    release_[b] = release;
    if (!is_blocked && low_[b] < min_top) out.push_back({low_[b], rank_[b], bi});
  }
  // The section that failed last is likely to fail again: check it alone first.
  if (hot_section_ >= lo && hot_section_ <= hi && !SectionFits(hot_section_)) return false;
  if (!SectionsFit(active, lo, hi)) return false;
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.start != b.start ? a.start < b.start : a.rank < b.rank;
  });
  return !out.empty();
}

// A section's buffers must all fit between its lowest start and the capacity. Its lowest
// start is the lowest release among its unplaced buffers (never below its floor: a
// buffer's lowest start clears every placed buffer it overlaps).
bool Search::Fits(int s, Units lowest_start) const {
  const auto si = static_cast<std::size_t>(s);
  const Units room = in_.any_obstacles ? in_.Available(s, lowest_start, capacity_)
                                       : (lowest_start >= capacity_ ? 0 : capacity_ - lowest_start);
  return remaining_[si] <= room;
}

bool Search::SectionFits(int s) {
  const auto si = static_cast<std::size_t>(s);
  if (remaining_[si] == 0) return true;
  Units lowest_start = kNone;
  for (int b : in_.section_buffers[si])
    if (!placed_[static_cast<std::size_t>(b)])
      lowest_start = std::min(lowest_start, release_[static_cast<std::size_t>(b)]);
  if (Fits(s, lowest_start)) return true;
  hot_section_ = s;
  return false;
}

// One walk over the unplaced buffers' sections: O(Σ spans) per node, which beats sorting
// the releases while buffers span tens of sections (the suite: 7 to 40 on average; the
// shared models: at most 6).
bool Search::SectionsFit(std::span<const int> active, int lo, int hi) {
  const auto first = section_low_.begin() + lo;
  std::fill(first, first + (hi - lo + 1), kNone);
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    const Units release = release_[b];
    for (int s = in_.lo[b]; s <= in_.hi[b]; ++s) {
      Units& low = section_low_[static_cast<std::size_t>(s)];
      low = std::min(low, release);
    }
  }
  for (int s = lo; s <= hi; ++s) {
    const auto si = static_cast<std::size_t>(s);
    if (remaining_[si] > 0 && !Fits(s, section_low_[si])) {
      hot_section_ = s;
      return false;
    }
  }
  return true;
}

bool Search::Decompose(std::span<const int> active, int lo, int hi, std::vector<Part>& parts) {
  bool cut = false;
  for (int s = lo; s < hi && !cut; ++s) cut = crossing_[static_cast<std::size_t>(s)] == 0;
  if (!cut) return false;
  std::size_t count = 0;
  for (int s = lo; s <= hi; ++s) {
    part_of_[static_cast<std::size_t>(s)] = static_cast<int>(count);
    if (s == hi || crossing_[static_cast<std::size_t>(s)] == 0) {
      if (parts.size() <= count) parts.resize(count + 1);
      parts[count].buffers.clear();
      parts[count].lo = s;
      ++count;
    }
  }
  // Each part ends where a cut is; it starts right after the previous one.
  for (std::size_t i = 0; i < count; ++i) {
    parts[i].hi = parts[i].lo;
    parts[i].lo = i == 0 ? lo : parts[i - 1].hi + 1;
  }
  parts.resize(count);
  for (int b : active)
    parts[static_cast<std::size_t>(
              part_of_[static_cast<std::size_t>(in_.lo[static_cast<std::size_t>(b)])])]
        .buffers.push_back(b);
  std::erase_if(parts, [](const Part& p) { return p.buffers.empty(); });
  // Small parts first: they are quick to settle and a failing one ends the node.
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return a.buffers.size() < b.buffers.size();
  });
  return true;
}

bool Search::Covers(const Refuted& r, int rank) const {
  // At the same offset, a higher rank blocks more buffers; ranks compare only within one
  // ranking, but rank -1 (nothing blocked) is below every rank of any ranking.
  return r.rank < 0 || (r.ranking == ranking_ && r.rank <= rank);
}

std::uint64_t Search::Term(std::size_t b, Units low) const {
  // A well-mixed function of (buffer, lowest start); the key is their sum.
  std::uint64_t z = buffer_hash_[b] + low * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 32)) * 0xd6e8feb86659fd93ULL;
  return z ^ (z >> 32);
}

std::uint64_t Search::StateKey(std::span<const int> active) const {
  std::uint64_t key = 0;
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    key += Term(b, low_[b]);
  }
  return key;
}

std::uint64_t Search::Place(int bi, Units start, std::uint64_t key) {
  const auto b = static_cast<std::size_t>(bi);
  key -= Term(b, low_[b]);
  placements_.push_back({bi, start_trail_.size(), floor_trail_.size()});
  placed_[b] = 1;
  offset_[b] = start;
  const Units top = start + in_.size[b];
  for (int vi : in_.overlaps[b]) {
    const auto v = static_cast<std::size_t>(vi);
    if (placed_[v] || low_[v] >= top) continue;
    start_trail_.push_back({vi, low_[v]});
    key -= Term(v, low_[v]);
    low_[v] = in_.Lift(vi, top);
    key += Term(v, low_[v]);
  }
  for (int s = in_.lo[b]; s <= in_.hi[b]; ++s) {
    const auto si = static_cast<std::size_t>(s);
    floor_trail_.push_back(floor_[si]);
    floor_[si] = top;
    remaining_[si] -= in_.size[b];
    if (s < in_.hi[b]) --crossing_[si];
  }
  return key;
}

void Search::Undo(std::size_t placements) {
  while (placements_.size() > placements) {
    const Placement p = placements_.back();
    placements_.pop_back();
    const auto b = static_cast<std::size_t>(p.buffer);
    for (int s = in_.hi[b]; s >= in_.lo[b]; --s) {
      const auto si = static_cast<std::size_t>(s);
      floor_[si] = floor_trail_.back();
      floor_trail_.pop_back();
      remaining_[si] += in_.size[b];
      if (s < in_.hi[b]) ++crossing_[si];
    }
    while (start_trail_.size() > p.start_mark) {
      low_[static_cast<std::size_t>(start_trail_.back().first)] = start_trail_.back().second;
      start_trail_.pop_back();
    }
    placed_[b] = 0;
  }
}

}  // namespace memplan::exact

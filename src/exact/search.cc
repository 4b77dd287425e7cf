#include "src/exact/search.h"

#include "src/exact/preorder.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace memplan::exact {

namespace {

constexpr Units kNone = std::numeric_limits<Units>::max();
constexpr std::size_t kRefutedSlots = std::size_t{1} << 16;
// Bits of a packed release word that hold the buffer.
constexpr int kBufferBits = 20;
constexpr std::size_t kMaxPacked = (std::size_t{1} << kBufferBits) - 1;

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
  words_ = (sections + 63) / 64;
  placed_.assign(n, 0);
  offset_.assign(n, 0);
  low_.resize(n);
  floor_.assign(sections, 0);
  remaining_.assign(sections, 0);
  crossing_.assign(sections + 1, 0);
  mask_.assign(n * words_, 0);
  std::uint64_t seed = 0x6d656d706c616eULL;
  buffer_hash_.resize(n);
  section_hash_.resize(sections);
  for (auto& h : buffer_hash_) h = Mix(seed);
  for (auto& h : section_hash_) h = Mix(seed) | 1;
  for (std::size_t b = 0; b < n; ++b) {
    low_[b] = in_.Lift(static_cast<int>(b), 0);
    for (int s = in_.lo[b]; s <= in_.hi[b]; ++s) {
      const auto si = static_cast<std::size_t>(s);
      remaining_[si] += in_.size[b];
      mask_[b * words_ + si / 64] |= std::uint64_t{1} << (si % 64);
      if (s < in_.hi[b]) ++crossing_[si];
    }
  }
  refuted_.assign(n > 0 ? kRefutedSlots : 1, Refuted{});
  // Every level of the search removes at least one buffer from the active set.
  // (and a level that splits the problem into parts is followed by one that does not).
  candidates_.resize(2 * n + 4);
  rest_.resize(2 * n + 4);
  parts_.resize(2 * n + 4);
  unpainted_.resize(words_);
  part_of_.resize(sections);
}

Search::Outcome Search::Run(Pacer& pacer) {
  pacer_ = &pacer;
  if (in_.fixed_top > capacity_) return Outcome::kExhausted;
  std::vector<int> all(in_.buffers());
  std::iota(all.begin(), all.end(), 0);
  try {
    return Solve(all, 0, -1, 0, 0, in_.sections - 1) ? Outcome::kFound : Outcome::kExhausted;
  } catch (const Stopped&) {
    return Outcome::kStopped;
  }
}

bool Search::Solve(std::span<const int> active, Units start, int rank, std::size_t depth, int lo,
                   int hi) {
  if (active.empty()) return true;
  if (!pacer_->Tick()) throw Stopped{};

  std::vector<Part>& parts = parts_[depth];
  if (Decompose(active, lo, hi, parts)) {
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
      const bool solved = Solve(part.buffers, 0, -1, depth + 1, part.lo, part.hi);
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

  const std::uint64_t key = Hash(active);
  const std::size_t slot = key & (refuted_.size() - 1);
  {
    const Refuted& r = refuted_[slot];
    if (r.key == key && (r.start < start || (r.start == start && Covers(r, rank)))) return false;
  }

  std::vector<Candidate>& candidates = candidates_[depth];
  if (Evaluate(active, start, rank, candidates)) {
    std::vector<int>& rest = rest_[depth];
    for (const Candidate& c : candidates) {
      rest.clear();
      for (int b : active)
        if (b != c.buffer) rest.push_back(b);
      const std::size_t mark = placements_.size();
      Place(c.buffer, c.start);
      bool covered = false;  // does an unplaced buffer overlap the one just placed?
      for (int v : in_.overlaps[static_cast<std::size_t>(c.buffer)])
        if (!placed_[static_cast<std::size_t>(v)]) {
          covered = true;
          break;
        }
      if (Solve(rest, c.start, c.rank, depth + 1, lo, hi)) return true;
      Undo(mark);
      if (!covered) break;
    }
  }
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
  if (r.key != key || start < r.start || (start == r.start && rank < 0) ||
      (start == r.start && r.ranking == ranking_ && rank < r.rank))
    r = {key, start, rank, ranking_};
  return false;
}

bool Search::Evaluate(std::span<const int> active, Units start, int rank,
                      std::vector<Candidate>& out) {
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
  releases_.clear();
  wide_releases_.clear();
  // Releases sort as single words, (release, buffer) packed, when they fit (they do
  // whenever the capacity in units is below 2^44); otherwise as pairs.
  const bool packed = capacity_ < (Units{1} << (64 - kBufferBits)) && in_.buffers() <= kMaxPacked;
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    Units release = low_[b];
    const bool is_blocked = blocked(b);
    if (is_blocked) release = in_.Lift(bi, lowest + min_size);
    if (release + in_.size[b] > capacity_) return false;
    if (packed)
      releases_.push_back(release << kBufferBits | b);
    else
      wide_releases_.push_back({release, bi});
    if (!is_blocked && low_[b] < min_top) out.push_back({low_[b], rank_[b], bi});
  }
  // Each section's lowest possible start is the lowest release among its unplaced
  // buffers: paint sections in order of release, each with the first one to reach it.
  std::fill(unpainted_.begin(), unpainted_.end(), ~std::uint64_t{0});
  auto paint = [&](Units release, std::size_t b) {
    const std::size_t first_word = static_cast<std::size_t>(in_.lo[b]) / 64;
    const std::size_t last_word = static_cast<std::size_t>(in_.hi[b]) / 64;
    for (std::size_t w = first_word; w <= last_word; ++w) {
      std::uint64_t fresh = mask_[b * words_ + w] & unpainted_[w];
      if (!fresh) continue;
      unpainted_[w] &= ~fresh;
      while (fresh) {
        const std::size_t s = w * 64 + static_cast<std::size_t>(__builtin_ctzll(fresh));
        fresh &= fresh - 1;
        const Units floor = std::max(floor_[s], release);
        const Units room = in_.any_obstacles ? in_.Available(static_cast<int>(s), floor, capacity_)
                                             : (floor >= capacity_ ? 0 : capacity_ - floor);
        if (remaining_[s] > room) return false;
      }
    }
    return true;
  };
  if (packed) {
    std::sort(releases_.begin(), releases_.end());
    for (std::uint64_t r : releases_)
      if (!paint(r >> kBufferBits, static_cast<std::size_t>(r & kMaxPacked))) return false;
  } else {
    std::sort(wide_releases_.begin(), wide_releases_.end(), [](const Release& a, const Release& b) {
      return a.release != b.release ? a.release < b.release : a.buffer < b.buffer;
    });
    for (const Release& r : wide_releases_)
      if (!paint(r.release, static_cast<std::size_t>(r.buffer))) return false;
    wide_releases_.clear();
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.start != b.start ? a.start < b.start : a.rank < b.rank;
  });
  return !out.empty();
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

std::uint64_t Search::Hash(std::span<const int> active) const {
  std::uint64_t h = 0;
  int lo = in_.sections, hi = -1;
  for (int bi : active) {
    const auto b = static_cast<std::size_t>(bi);
    h ^= buffer_hash_[b];
    lo = std::min(lo, in_.lo[b]);
    hi = std::max(hi, in_.hi[b]);
  }
  for (int s = lo; s <= hi; ++s)
    h += floor_[static_cast<std::size_t>(s)] * section_hash_[static_cast<std::size_t>(s)];
  return h ? h : 1;
}

void Search::Place(int bi, Units start) {
  const auto b = static_cast<std::size_t>(bi);
  placements_.push_back({bi, start_trail_.size(), floor_trail_.size()});
  placed_[b] = 1;
  offset_[b] = start;
  const Units top = start + in_.size[b];
  for (int vi : in_.overlaps[b]) {
    const auto v = static_cast<std::size_t>(vi);
    if (placed_[v] || low_[v] >= top) continue;
    start_trail_.push_back({vi, low_[v]});
    low_[v] = in_.Lift(vi, top);
  }
  for (int s = in_.lo[b]; s <= in_.hi[b]; ++s) {
    const auto si = static_cast<std::size_t>(s);
    floor_trail_.push_back(floor_[si]);
    floor_[si] = top;
    remaining_[si] -= in_.size[b];
    if (s < in_.hi[b]) --crossing_[si];
  }
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

// O(n + steps) lower bound (layout_bound.h).
#include "src/cpuplan/layout_bound.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "memplan/bounds.h"
#include "src/cpuplan/align.h"

namespace memplan::cpuplan {

Bytes SweepLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak) {
  SweepScratch scratch;
  return SweepLowerBound(records, alignment, peak, scratch);
}

Bytes SweepLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak,
                      SweepScratch& scratch) {
  if (peak) *peak = -1;
  Step steps = 0;
  for (const UsageRecord& r : records)
    if (r.size > 0) steps = std::max(steps, r.last + 2);
  // Paddings below 64 fit a bit mask; sparse steps would make the buckets too long.
  if (alignment == 0 || alignment > 64 || steps > 4 * static_cast<Step>(records.size()) + 1024 ||
      std::any_of(records.begin(), records.end(),
                  [](const UsageRecord& r) { return r.first < 0; })) {
    Problem problem;
    problem.records = records;
    problem.alignment = alignment;
    return OffsetsLowerBound(problem);
  }
  const auto n = static_cast<std::size_t>(steps);
  // Events bucketed by step: an arrival at `first`, a departure at `last + 1`, in the
  // caller's buffers (a small graph's bound costs less than allocating them).
  std::vector<std::uint32_t>& start = scratch.bound_start;
  std::vector<std::uint32_t>& fill = scratch.bound_fill;
  start.assign(n + 1, 0);
  for (const UsageRecord& r : records) {
    if (r.size == 0) continue;
    ++start[static_cast<std::size_t>(r.first) + 1];
    ++start[static_cast<std::size_t>(r.last + 1) + 1];
  }
  for (std::size_t s = 1; s <= n; ++s) start[s] += start[s - 1];
  std::vector<BoundEvent>& events = scratch.bound_events;
  events.resize(start[n]);
  fill.assign(start.begin(), start.end() - 1);
  for (const UsageRecord& r : records) {
    if (r.size == 0) continue;
    const Bytes aligned = AlignUpFast(r.size, alignment);
    const auto pad = static_cast<std::uint32_t>(aligned - r.size);
    events[fill[static_cast<std::size_t>(r.first)]++] = {aligned, pad, true};
    events[fill[static_cast<std::size_t>(r.last + 1)]++] = {aligned, pad, false};
  }
  std::uint32_t live_pads[64] = {};
  std::uint64_t pad_mask = 0;  // bit p: some live record has padding p
  Bytes padded = 0, bound = 0;
  for (std::size_t s = 0; s < n; ++s) {
    if (start[s] == start[s + 1]) continue;
    for (std::uint32_t e = start[s]; e < start[s + 1]; ++e) {
      const BoundEvent& ev = events[e];
      if (ev.arrive) {
        padded += ev.aligned;
        if (live_pads[ev.pad]++ == 0) pad_mask |= std::uint64_t{1} << ev.pad;
      } else {
        padded -= ev.aligned;
        if (--live_pads[ev.pad] == 0) pad_mask &= ~(std::uint64_t{1} << ev.pad);
      }
    }
    const Bytes top_pad = pad_mask == 0 ? 0 : static_cast<Bytes>(63 - std::countl_zero(pad_mask));
    const Bytes here = padded > top_pad ? padded - top_pad : 0;
    if (here > bound || (peak && *peak < 0)) {
      bound = std::max(bound, here);
      if (peak) *peak = static_cast<Step>(s);
    }
  }
  return bound;
}

Bytes LiveBytesAt(const std::vector<UsageRecord>& records, Bytes alignment, Step step) {
  LiveBytes alive(alignment);
  for (const UsageRecord& r : records)
    if (r.size > 0 && r.first <= step && step <= r.last) alive.Add(r.size);
  return alive.value();
}

Bytes CoarseLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak) {
  SweepScratch scratch;
  return CoarseLowerBound(records, alignment, peak, scratch);
}

Bytes CoarseLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak,
                       SweepScratch& scratch) {
  *peak = -1;
  Step steps = 0;
  for (const UsageRecord& r : records) {
    if (r.size == 0) continue;
    if (r.first < 0) return 0;
    steps = std::max(steps, r.last + 2);
  }
  if (alignment == 0 || steps > 4 * static_cast<Step>(records.size()) + 1024) return 0;
  std::vector<Bytes>& change = scratch.bound_change;  // the caller's, as the sweep's buffers
  change.assign(static_cast<std::size_t>(steps), 0);
  Bytes top_pad = 0;
  for (const UsageRecord& r : records) {
    if (r.size == 0) continue;
    const Bytes aligned = AlignUpFast(r.size, alignment);
    top_pad = std::max(top_pad, aligned - r.size);
    change[static_cast<std::size_t>(r.first)] += aligned;
    change[static_cast<std::size_t>(r.last + 1)] -= aligned;  // wraps back when added
  }
  Bytes alive = 0, most = 0;
  for (std::size_t s = 0; s < change.size(); ++s) {
    alive += change[s];
    if (alive > most) {
      most = alive;
      *peak = static_cast<Step>(s);
    }
  }
  return most > top_pad ? most - top_pad : 0;
}

}  // namespace memplan::cpuplan

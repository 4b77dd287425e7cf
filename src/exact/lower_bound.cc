// ExactLowerBound: the load bound made safe for alignment and fixed records.
#include <algorithm>
#include <map>
#include <set>

#include "memplan/exact.h"

namespace memplan {

Bytes ExactLowerBound(const Problem& problem) {
  const Bytes align = problem.alignment;
  struct Event {
    Step step;
    bool arrive;
    std::size_t record;
  };
  std::vector<Event> events;
  Bytes bound = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    events.push_back({r.first, true, i});
    events.push_back({r.last + 1, false, i});
    if (problem.IsFixed(i)) bound = std::max(bound, *problem.fixed_offsets[i] + r.size);
  }
  // Departures before arrivals at the same step: inclusive intervals end at step - 1.
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.step != b.step ? a.step < b.step : a.arrive < b.arrive;
  });
  Bytes padded = 0;                          // aligned sizes of the live free records
  std::multiset<Bytes> pads;                 // their padding (the top one needs none)
  std::multimap<Bytes, Bytes> fixed_ranges;  // live fixed records: begin -> end
  for (std::size_t e = 0; e < events.size(); ++e) {
    const Event& ev = events[e];
    const UsageRecord& r = problem.records[ev.record];
    if (problem.IsFixed(ev.record)) {
      const Bytes begin = *problem.fixed_offsets[ev.record];
      if (ev.arrive) {
        fixed_ranges.emplace(begin, begin + r.size);
      } else {
        auto [first, last] = fixed_ranges.equal_range(begin);
        for (auto it = first; it != last; ++it)
          if (it->second == begin + r.size) {
            fixed_ranges.erase(it);
            break;
          }
      }
    } else {
      const Bytes aligned = AlignUp(r.size, align);
      if (ev.arrive) {
        padded += aligned;
        pads.insert(aligned - r.size);
      } else {
        padded -= aligned;
        pads.erase(pads.find(aligned - r.size));
      }
    }
    if (e + 1 < events.size() && events[e + 1].step == ev.step) continue;
    Bytes fixed_union = 0, covered_to = 0;
    for (const auto& [begin, end] : fixed_ranges) {
      const Bytes from = std::max(begin, covered_to);
      if (end > from) fixed_union += end - from;
      covered_to = std::max(covered_to, end);
    }
    const Bytes free_part = pads.empty() ? 0 : padded - *pads.rbegin();
    bound = std::max(bound, fixed_union + free_part);
  }
  return bound;
}

}  // namespace memplan

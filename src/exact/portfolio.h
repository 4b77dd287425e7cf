#pragma once
// Runs several searches (one per ordering) on one capacity question in rounds of a
// fixed number of nodes, on up to `threads` threads. The answer is that of the member
// that needs the fewest nodes (ties: the earlier member), so it does not depend on the
// thread count or on timing, except when the deadline cuts the question short.
#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "src/exact/instance.h"

namespace memplan::exact {

struct PortfolioAnswer {
  enum class Kind { kFound, kExhausted, kUnknown } kind = Kind::kUnknown;
  std::vector<Units> offsets;  // per free buffer, when found
  std::uint64_t nodes = 0;     // nodes over all members
};

// The orderings the portfolio runs, in priority order (Preorder keys; the parts found by
// decomposition are ranked afresh by them, except after a trailing '.').
const std::vector<std::string_view>& PortfolioOrderings();

PortfolioAnswer RunPortfolio(const Instance& instance, Units capacity, unsigned threads,
                             std::chrono::steady_clock::time_point deadline,
                             std::uint64_t node_limit);

}  // namespace memplan::exact

#pragma once
// Static orderings of the free buffers. Letters are keys, compared in turn, larger
// first: W lifetime in steps, A area (size x steps), T the largest section total the
// buffer lives through, Z size, C sections spanned, L first section, U last section,
// O buffers overlapping it in time (MiniMalloc's letters); last tie: record order. The search
// breaks ties between placements at the same offset by this order.
#include <span>
#include <string_view>
#include <vector>

#include "src/exact/instance.h"

namespace memplan::exact {

// rank[b] = position of buffer b in the ordering `keys` (e.g. "TWA").
std::vector<int> Preorder(const Instance& instance, std::string_view keys);

// Sets rank[b] for every b in `buffers` to its position among them in the ordering
// `keys`, with T taken from `section_total` (per section: the sizes that count).
void RankBuffers(const Instance& instance, std::string_view keys, std::span<const int> buffers,
                 std::span<const Units> section_total, std::vector<int>& rank);

}  // namespace memplan::exact

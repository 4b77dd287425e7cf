#pragma once
// TFLM's OfflineMemoryAllocation metadata words, read with every length checked (TFLM
// itself trusts them).
#include <cstddef>
#include <cstdint>
#include <span>

#include "memplan/tflite.h"

namespace memplan::formats {

// Reads [version, subgraphs, N, offset x N] (little-endian 32-bit words) for a model of
// `tensor_count` tensors. Never throws: what TFLM would refuse goes to `problem`.
OfflinePlan ParseOfflinePlan(std::span<const std::uint8_t> data, std::size_t tensor_count);

}  // namespace memplan::formats

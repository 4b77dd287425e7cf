#pragma once
// How big an arena a model needs: measured by loading it into a scratch arena on the
// host heap (large enough, untouched pages cost nothing) and reading the true peak.
// TFLM leaves users to find this by trial and error (docs/tflm.md); memplan says it
// when an arena turns out too small.
#include <string>

#include "memplan/arena.h"
#include "src/runtime/interpreter_state.h"

namespace memplan::runtime {

// What a shared arena already held before a model was loaded into it.
struct ArenaState {
  Bytes capacity = 0;                        // usable bytes
  Bytes persistent_used = 0;                 // tail bytes of the models loaded before
  Bytes reserved_head = 0;                   // their largest plan
  Bytes alignment = kDefaultArenaAlignment;  // the arena's alignment
  bool two_buffers = false;                  // tail in a buffer of its own

  static ArenaState Of(const Arena& arena);
};

using ArenaNeed = ArenaRequirement;

// Measures the need of the model `like` describes (graph, kernels, options,
// preallocations); nullopt when no arena up to 2^44 bytes suffices.
std::optional<ArenaNeed> MeasureArenaNeed(const InterpreterState& like, const ArenaState& before);

// What to add to TFLM's words when a load failed: the size that would suffice.
std::string ExplainArenaNeed(const InterpreterState& like, const ArenaState& before);

}  // namespace memplan::runtime

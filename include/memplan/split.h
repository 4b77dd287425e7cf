#pragma once
// Patch-based execution written into a .tflite model: a stage of consecutive spatial ops
// (CONV_2D, DEPTHWISE_CONV_2D, pooling where exact) is rewritten so that the stock
// interpreter runs it patch by patch: each patch cuts its input window (halo included)
// with SLICE, pads explicitly (PAD, or PADV2 with the zero point for int8) only
// on the sides where the original padding touched the image border (or keeps SAME where
// that pads exactly there), runs the stage's ops with VALID padding on the same weights,
// and the patch outputs are joined with CONCATENATION (trees of at most 10 inputs). Every
// output stays bit-identical. The search keeps the stage and grid whose whole arena on the
// device (head and the tail every added op costs, as the caller measures it) is smallest,
// and never a rewrite larger than the original (docs/below-the-bound.md).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"
#include "memplan/problem.h"

namespace memplan {

// Patches of the stage's output: rows x columns.
struct PatchGrid {
  int rows = 1;  // bands along the height
  int cols = 1;  // bands along the width
};

// A stage: ops first..last (inclusive) of subgraph 0, by their index in the original.
struct SplitStage {
  int first_op = 0;  // first op of the stage
  int last_op = 0;   // last op of the stage
};

// What a model costs on the device: the arena TensorFlow Lite Micro needs for it.
struct SplitArena {
  Bytes head = 0;   // the planned tensors
  Bytes tail = 0;   // the persistent allocations (nodes, evaluation tensors, op data)
  Bytes whole = 0;  // the smallest arena that works: head, tail and temporary allocations
};

struct SplitRequest {
  std::optional<PatchGrid> patches;  // nullopt: search the grid
  std::optional<SplitStage> stage;   // nullopt: search the stage
  double max_extra_macs = 0.20;      // extra multiply-accumulates allowed, as a fraction
  // The arena a model needs on the target; the search keeps the smallest whole arena.
  // Required when anything is searched. Without it a given stage and grid is rewritten
  // unjudged.
  std::function<SplitArena(const std::string& model_bytes)> arena_of;
  // The arena of a candidate as it will be written (e.g. planned in the best operator
  // order), when that differs from arena_of; the search re-measures its few best with it.
  std::function<SplitArena(const std::string& model_bytes)> final_arena_of;
  // The original's arena, when the caller measured it its own way (e.g. planned in the
  // best operator order); nullopt: arena_of(the original).
  std::optional<SplitArena> arena_before;
  // When no split makes the whole arena smaller: still rewrite, with the smallest head.
  bool force = false;
};

struct SplitResult {
  bool split = false;             // false: nothing rewritten (see why_not)
  std::string why_not;            // why no stage was split
  std::string bytes;              // the rewritten model (when split), without a memory plan
  PatchGrid patches;              // the grid used
  SplitStage stage;               // the stage rewritten
  std::uint64_t macs_before = 0;  // multiply-accumulates of CONV_2D, DEPTHWISE_CONV_2D,
                                  // FULLY_CONNECTED in the original
  std::uint64_t macs_after = 0;   // the same in the rewritten model
  std::size_t ops_before = 0;     // ops of subgraph 0 before
  std::size_t ops_after = 0;      // and after
  SplitArena arena_before;        // arena_of(the original), when arena_of is set
  SplitArena arena_after;         // arena_of(bytes) (split), or of the best candidate (not)
  bool larger = false;            // forced: the whole arena is not smaller than before
  std::size_t candidates = 0;     // rewrites tried (planned) by the search
};

// The stages a model allows: maximal chains of splittable ops (each the first op of a
// chain and its last), with why the chain ends. For messages and the search.
struct SplitChain {
  SplitStage ops;        // first and last op of the chain
  std::string ends_why;  // why the op after `last_op` cannot join
};
std::vector<SplitChain> SplittableChains(std::string_view bytes, std::string_view source);

// What a model split by memplan shows of it (its tensors are named split:rRcC:NAME).
struct SplitLayout {
  int rows = 0;             // patch rows (largest R + 1)
  int cols = 0;             // patch columns
  int first_op = 0;         // first op of subgraph 0 writing a patch tensor
  int last_op = 0;          // the last one (the joining CONCATENATION)
  std::size_t tensors = 0;  // tensors belonging to patch groups
};
// The layout of a split model, or nullopt when subgraph 0 has no patch tensors.
std::optional<SplitLayout> DescribeSplit(const Graph& graph);
// The patch group of a tensor name: "split:r1c2" for "split:r1c2:conv/out", "" otherwise.
std::string PatchGroupOf(std::string_view tensor_name);

// Rewrites `bytes` as asked (or as the search finds best: the smallest whole arena by
// `arena_of`). Never changes the input. Never worse: when the best rewrite's whole arena
// is not smaller than the original's, split = false and why_not gives both (unless
// `force`: then the smallest-head rewrite, larger = true).
// InputError naming `source` for a malformed model or a stage/grid that cannot be split
// exactly (when both are given); a model without a splittable stage gives split = false.
SplitResult SplitTflite(std::string_view bytes, std::string_view source,
                        const SplitRequest& request);

}  // namespace memplan

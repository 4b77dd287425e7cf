#pragma once
// In-place outputs: an operator's output takes over the memory of one of its inputs
// instead of getting its own buffer. Done as a transform of the usage records before
// planning (docs/below-the-bound.md): the output's record merges into the
// record of the input it reuses (size = max, interval = union; chains collapse to one
// root), and the plan of the merged records is expanded back so both tensors get the
// root's offset.
//
// Which operator may share is a rule set: a table per op type, each entry with a
// one-line reason. `tflite` is TensorFlow Lite CPU's ArenaPlanner, `tflm` what
// TensorFlow Lite Micro's reference kernels tolerate on identical memory, `all` every
// operator that is safe with element-wise loops, `none` nothing.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"
#include "memplan/lifetimes.h"
#include "memplan/plan.h"

namespace memplan {

// How an output uses the memory of the input it shares.
enum class ShareKind {
  // Reshape-like: the bytes are not modified, so the input may stay in use by other
  // operators and several outputs may alias it. Order-independent.
  kAlias,
  // The operator writes its result over the input; allowed only when the input (and
  // every tensor aliased to it) is read by no operator that runs later.
  kOverwrite,
};

// One operator type's entry in a rule set.
struct InPlaceRule {
  std::string op;        // operator type as the readers name it: "ADD", "Relu"
  std::uint32_t inputs;  // bit i set: input i may be shared, tried in index order
  ShareKind kind;        // alias or overwrite
  std::string why;       // one line: why the kernel is correct on shared memory
};

// A named table of rules. Conditions that hold for every rule set: only an operator's
// first output shares; input and output have equal byte sizes larger than 4; neither
// is a (sub)graph input or output, a constant or a variable; an overwrite needs the
// operator to be the last reader of the input's whole alias group.
struct InPlaceRuleSet {
  std::string name;     // "tflite", "tflm", "all", "none", or a caller's own
  std::string summary;  // one line for --help and reports
  // TensorFlow Lite's stricter condition for overwrites: the input, and the root of
  // the buffer it already shares, are read by one operator in the whole graph
  // (reference count <= 1, graph outputs counting one more).
  bool single_consumer = false;
  // Rules sorted by op type (Find relies on it).
  std::vector<InPlaceRule> rules;

  // The rule for an operator type, or nullptr.
  const InPlaceRule* Find(std::string_view op) const;
  bool empty() const { return rules.empty(); }
};

// The built-in rule sets, in the order --help lists them: none, tflite, tflm, all.
std::span<const InPlaceRuleSet> InPlaceRuleSets();

// The built-in rule set called `name`, or nullptr.
const InPlaceRuleSet* FindInPlaceRuleSet(std::string_view name);

// The built-in rule set called `name`; UsageError naming the known ones otherwise.
const InPlaceRuleSet& InPlaceRuleSetNamed(std::string_view name);

// A copy of `set` without the rules for `ops` (e.g. tflm without SOFTMAX), named
// "NAME-OP1-OP2".
InPlaceRuleSet WithoutOps(const InPlaceRuleSet& set, const std::vector<std::string>& ops);

// One output that shares an input's memory.
struct BufferShare {
  std::int32_t subgraph = 0;  // the subgraph of the operator and both tensors
  std::int32_t op = 0;        // the operator (index in its subgraph's ops)
  std::int32_t output = 0;    // the tensor that gets no buffer of its own
  std::int32_t input = 0;     // the input whose memory it takes
  std::int32_t root = 0;      // the tensor that owns the buffer (input, or its root)
  ShareKind kind = ShareKind::kAlias;
};

// Merged records and how to get back to tensors.
struct InPlaceRecords {
  Problem problem;                 // one record per buffer; names of the root tensors
  std::vector<TensorRef> origins;  // per merged record: the root tensor owning it
  // Per record of the original problem: the merged record (buffer) it lives in.
  std::vector<std::size_t> buffer_of;
  std::vector<BufferShare> shares;  // every share, in execution order
};

// Applies `rules` to the records of `graph` in its own operator order. `records` are
// RecordsFromGraph(graph) (any accounting: tensors without a record never share). A
// record with a fixed offset never merges. With the empty rule set the problem comes
// back unchanged.
InPlaceRecords ApplyInPlace(const Graph& graph, const GraphRecords& records,
                            const InPlaceRuleSet& rules);

// The shares `rules` allow in subgraph `subgraph` when its operators run in `order`
// (op indices; the file order when empty), without looking at records.
std::vector<BufferShare> FindShares(const Graph& graph, std::size_t subgraph,
                                    const InPlaceRuleSet& rules,
                                    std::span<const std::int32_t> order = {});

// Expands a verified plan of `merged.problem` to the original records: every record
// gets its buffer's offset. Checks that each record fits its buffer in size and
// lifetime (InternalError otherwise). The result is not a plan FindViolations accepts
// for `original` (shared tensors overlap by design); VerifyExpandedOrThrow checks it.
OffsetPlan ExpandPlan(const Problem& original, const InPlaceRecords& merged,
                      const OffsetPlan& merged_plan);

// Checks an expanded plan: the merged plan is valid for the merged problem, and every
// original record sits at its buffer's offset, inside its size and lifetime.
void VerifyExpandedOrThrow(const Problem& original, const InPlaceRecords& merged,
                           const OffsetPlan& merged_plan, const OffsetPlan& expanded);

}  // namespace memplan

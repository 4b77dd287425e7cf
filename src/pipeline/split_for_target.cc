// A split chosen for a target's whole TFLM arena (include/memplan/split_for_target.h).
#include "memplan/split_for_target.h"

#include <fmt/format.h>

#include <set>

#include "memplan/embed.h"
#include "memplan/error.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"

namespace memplan {

namespace {

// The model with memplan's offline plan (the library's embed with its defaults; `reorder`:
// also search the operator order), its warnings to `warn` when set.
std::string Planned(const std::string& bytes, const std::string& label, bool reorder,
                    const std::function<void(const std::string&)>& warn = {}) {
  EmbeddedPlan plan = EmbedPlanInModel(bytes, label, reorder);
  if (warn)
    for (const std::string& warning : plan.warnings) warn(warning);
  return std::move(plan.bytes);
}

// The whole arena TFLM needs for a model that carries its offline plan, on `target`
// (what `memplan arena` says, with a plain MicroInterpreter). InputError when the target's
// reference kernels refuse an op the original runs (`allowed`: the original's refusals).
SplitArena WholeArena(const std::string& planned, const std::string& label, const TargetAbi& target,
                      const std::set<std::string>* allowed = nullptr) {
  const Graph graph = ParseTflite(planned, label).graph;
  if (allowed)
    for (const TflmOpNote& note : CheckTflmOps(graph, target).unsupported)
      if (!allowed->contains(note.type + ": " + note.why))
        throw InputError(fmt::format("{}: op {} ({}) is refused on {}: {}", label, note.op,
                                     note.type, target.name, note.why));
  const TflmArenaFigures f = ModelTflmArena(graph, target, TflmHeadPlanFromRuntime(graph, target));
  return {f.head, f.tail, f.minimal_arena_plain};
}

std::set<std::string> Refusals(const std::string& planned, const std::string& label,
                               const TargetAbi& target) {
  std::set<std::string> refused;
  for (const TflmOpNote& note : CheckTflmOps(ParseTflite(planned, label).graph, target).unsupported)
    refused.insert(note.type + ": " + note.why);
  return refused;
}

// The original on the device two ways: as it is (TFLM plans it, or uses the offline plan
// it carries) and planned by memplan without a split (what `memplan embed --reorder`
// writes). A split must beat both, or `embed` alone would do better.
struct Original {
  std::string as_is;     // the model's bytes
  std::string embedded;  // with memplan's offline plan
};

TargetArenas ArenasOn(const TargetAbi& target, const Original& original, const std::string* after,
                      const SplitForTargetRequest& r) {
  TargetArenas f{target.name,
                 WholeArena(original.as_is, r.label, target),
                 WholeArena(original.embedded, r.label, target),
                 {}};
  if (after) f.after = WholeArena(*after, r.out_label, target);
  return f;
}

// The split model planned as embed --reorder plans it, unless the order found makes the
// whole arena on the target larger than the split's own order did.
std::string PlanWritten(const SplitResult& split, const SplitForTargetRequest& r,
                        const TargetAbi& target) {
  std::string reordered = Planned(split.bytes, r.out_label, true, r.warn);
  if (WholeArena(reordered, r.out_label, target).whole <= split.arena_after.whole ||
      split.arena_after.whole == 0)
    return reordered;
  return Planned(split.bytes, r.out_label, false, r.warn);
}

nlohmann::ordered_json SplitArenaJson(const SplitArena& a) {
  return {{"head", a.head}, {"tail", a.tail}, {"arena", a.whole}};
}

}  // namespace

SplitForTarget SplitForTflmTarget(const SplitForTargetRequest& r) {
  const TargetAbi target = WithTflmKernels(TflmTargetNamed(r.target), TflmKernelsNamed(r.kernels));
  SplitRequest request = r.search;
  Original original;
  original.as_is = r.model;
  // memplan's best without a split: embed with outputs in place and the best operator
  // order (a model that already carries an offline plan keeps its order: the plan is made
  // for it).
  const bool planned = ParseTflite(original.as_is, r.label).offline_plan.has_value();
  original.embedded = Planned(original.as_is, r.label, !planned);
  const TargetArenas bar = ArenasOn(target, original, nullptr, r);
  request.arena_before = bar.before();
  const std::set<std::string> refused = Refusals(original.as_is, r.label, target);
  // The search plans each candidate in its own order (patch after patch): the order
  // search on hundreds of patch ops costs more than it finds.
  const std::string candidate = fmt::format("a split of {}", r.label);
  request.arena_of = [&](const std::string& model) {
    return WholeArena(Planned(model, candidate, false), candidate, target, &refused);
  };
  // The few best again as they will be written: with the order search.
  request.final_arena_of = [&](const std::string& model) {
    return WholeArena(Planned(model, candidate, true), candidate, target, &refused);
  };
  SplitForTarget out;
  out.result = SplitTflite(original.as_is, r.label, request);
  if (!out.result.split) {
    out.targets.push_back(bar);
    return out;
  }
  out.written = PlanWritten(out.result, r, target);
  // The chosen device, and the two general ones for comparison.
  out.targets.push_back(ArenasOn(target, original, &out.written, r));
  for (const char* name : {"host64", "arm32"})
    if (r.target != name)
      out.targets.push_back(ArenasOn(TflmTargetNamed(name), original, &out.written, r));
  return out;
}

nlohmann::ordered_json SplitForTargetJson(const SplitForTargetRequest& request,
                                          const SplitForTarget& split) {
  const SplitResult& r = split.result;
  if (!r.split) {
    const TargetArenas& f = split.targets.front();
    nlohmann::ordered_json j;
    j["input"] = request.label;
    j["split"] = false;
    j["why"] = r.why_not;
    j["target"] = request.target;
    j["arena_before"] = f.as_is.whole;
    j["before"] = SplitArenaJson(f.as_is);
    j["embedded"] = SplitArenaJson(f.embedded);
    if (r.candidates) j["best_candidate"] = SplitArenaJson(r.arena_after);
    j["macs_before"] = r.macs_before;
    j["candidates"] = r.candidates;
    return j;
  }
  const std::vector<TargetArenas>& figures = split.targets;
  const TargetArenas& chosen = figures.front();
  nlohmann::ordered_json j;
  j["input"] = request.label;
  j["output"] = request.out_label;
  j["split"] = true;
  j["larger"] = r.larger;
  j["target"] = request.target;
  j["arena_before"] = chosen.as_is.whole;
  j["arena_after"] = chosen.after.whole;
  nlohmann::ordered_json targets = nlohmann::ordered_json::object();
  for (const TargetArenas& f : figures)
    targets[f.target] = {{"before", SplitArenaJson(f.as_is)},
                         {"embedded", SplitArenaJson(f.embedded)},
                         {"after", SplitArenaJson(f.after)}};
  j["targets"] = targets;
  nlohmann::ordered_json not_smaller = nlohmann::ordered_json::array();
  for (const TargetArenas& f : figures)
    if (f.after.whole >= f.before().whole) not_smaller.push_back(f.target);
  j["not_smaller_on"] = not_smaller;
  j["macs_before"] = r.macs_before;
  j["macs_after"] = r.macs_after;
  j["patches"] = fmt::format("{}x{}", r.patches.rows, r.patches.cols);
  j["stage"] = {r.stage.first_op, r.stage.last_op};
  j["ops_added"] = static_cast<std::int64_t>(r.ops_after) - static_cast<std::int64_t>(r.ops_before);
  j["candidates"] = r.candidates;
  return j;
}

}  // namespace memplan

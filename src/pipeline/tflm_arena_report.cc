// The whole TFLM arena of a model in words and as JSON (include/memplan/tflm_arena_report.h).
#include "memplan/tflm_arena_report.h"

#include <fmt/format.h>

namespace memplan {

namespace {

// Why TFLM also accepts a smaller persistent buffer, and the first runs of sizes it accepts.
std::string AcceptedPersistentNote(const TflmArenaFigures& f) {
  constexpr std::size_t kShown = 6;  // the JSON report lists them all
  const auto& accepted = f.two_buffer_persistent_accepted;
  std::string runs;
  for (std::size_t i = 0; i < accepted.size() && i < kShown; ++i)
    runs += fmt::format(", {}-{}", accepted[i].first, accepted[i].last + 15);
  if (accepted.size() > kShown)
    runs += fmt::format(", ... ({} runs in all; the JSON report lists them)", accepted.size());
  const char* why =
      f.target.kernels == TflmKernels::kCmsisNn
          ? "CMSIS-NN's kernels (and the reference float CONV_2D and DEPTHWISE_CONV_2D) do not "
            "check their per-channel arrays and kernel sums; one not granted is written "
            "through a null pointer, which only a board with writable memory at address 0 "
            "survives"
          : "float CONV_2D and DEPTHWISE_CONV_2D do not check their per-channel arrays, which "
            "float never uses, and go on without them";
  return fmt::format(
      "  (TFLM also accepts a persistent buffer of {} bytes: {}; {} is the size where every "
      "allocation is granted; accepted below it: {})\n",
      f.two_buffer_persistent, why, f.two_buffer_persistent_safe, runs.substr(2));
}

}  // namespace

std::string TflmArenaText(const TflmArenaFigures& f) {
  std::string s = TflmPrintAllocations(f);
  // Every figure of a model with an op whose memory is unknown is a lower bound, said on
  // the line of the figure (a pasted line keeps its warning).
  const char* bound = f.lower_bound() ? " (lower bound)" : "";
  const char* paste_note =
      f.lower_bound() ? "  // LOWER BOUND: TFLM needs more (an op's memory is unknown)" : "";
  s += fmt::format("arena_used_bytes() {}{}\n", f.arena_used, bound);
  s += fmt::format(
      "smallest tensor_arena_size that works (RecordingMicroInterpreter): {}{} (temporary "
      "allocations while ops are prepared included)\n",
      f.minimal_arena, bound);
  s += fmt::format("constexpr int kTensorArenaSize = {};{}\n", f.minimal_arena, paste_note);
  s += fmt::format("with a plain MicroInterpreter (no recording): {}{}\n", f.minimal_arena_plain,
                   bound);
  s += fmt::format("constexpr int kTensorArenaSize = {};{}\n", f.minimal_arena_plain, paste_note);
  s += fmt::format("two buffers: persistent {} bytes, non-persistent {} bytes{}\n",
                   f.two_buffer_persistent_safe, f.two_buffer_non_persistent, bound);
  if (f.two_buffer_persistent < f.two_buffer_persistent_safe) s += AcceptedPersistentNote(f);
  return s;
}

// The ops whose memory is not modelled, said up front: the figures are then lower bounds.
std::string TflmOpNotesText(const TflmOpCheck& check) {
  std::string s;
  for (const std::string& line : GroupTflmOpNotes(check.unmodelled))
    s += fmt::format("LOWER BOUND: {}; every figure below is at least this much\n", line);
  return s;
}

std::string TflmRefusalText(const std::string& model, const TargetAbi& target,
                            const TflmOpCheck& check) {
  std::string s = fmt::format(
      "{}: TensorFlow Lite Micro ({} kernels, target {}) will refuse this model: "
      "AllocateTensors fails, so no arena size is given\n",
      model, TflmKernelsName(target.kernels), target.name);
  for (const TflmOpNote& n : check.unsupported)
    s += fmt::format("  op {}{} ({}): {}\n", n.subgraph ? fmt::format("{}:", n.subgraph) : "", n.op,
                     n.type, n.why);
  return s.substr(0, s.size() - 1);
}

nlohmann::ordered_json TflmArenaJson(const std::string& model, const TflmArenaFigures& f) {
  nlohmann::ordered_json j;
  j["model"] = model;
  j["target"] = f.target.name;
  j["kernels"] = std::string(TflmKernelsName(f.target.kernels));
  j["tflm_commit"] = std::string(kTflmCommit);
  j["head"] = f.head;
  j["tail"] = f.tail;
  j["arena_used_bytes"] = f.arena_used;
  j["minimal_arena_bytes"] = f.minimal_arena;
  j["minimal_arena_bytes_micro_interpreter"] = f.minimal_arena_plain;
  nlohmann::ordered_json accepted = nlohmann::ordered_json::array();
  for (const TflmSizeRange& r : f.two_buffer_persistent_accepted)
    accepted.push_back({r.first, r.last + 15});  // first and last byte of each run
  j["two_buffers"] = {{"persistent", f.two_buffer_persistent},
                      {"persistent_safe", f.two_buffer_persistent_safe},
                      {"persistent_accepted", accepted},
                      {"non_persistent", f.two_buffer_non_persistent}};
  j["lower_bound"] = f.lower_bound();
  nlohmann::ordered_json cats = nlohmann::ordered_json::object();
  for (const TflmCategory& c : f.categories)
    cats[c.name] = {{"used", c.used}, {"requested", c.requested}, {"count", c.count}};
  j["categories"] = cats;
  auto notes = [](const std::vector<TflmOpNote>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const TflmOpNote& n : v)
      a.push_back({{"subgraph", n.subgraph}, {"op", n.op}, {"type", n.type}, {"why", n.why}});
    return a;
  };
  j["unsupported_ops"] = notes(f.unsupported);
  j["unmodelled_ops"] = notes(f.unmodelled);
  return j;
}

}  // namespace memplan

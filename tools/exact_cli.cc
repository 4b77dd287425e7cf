#include "tools/exact_cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "memplan/records_io.h"
#include "memplan/table.h"
#include "tools/plan_output.h"

namespace memplan::cli {

namespace {

// Writes "\r..." progress lines to stderr after the first second; ends the line when
// destroyed so later output starts on a fresh line.
struct ProgressLine {
  bool shown = false;
  ~ProgressLine() {
    if (shown) std::fputs("\n", stderr);
  }
  void Show(const ExactProgress& p) {
    if (p.elapsed_s < 1.0) return;
    shown = true;
    std::string asking =
        p.probing_bytes ? fmt::format(", asking {} B", WithThousands(p.probing_bytes)) : "";
    // The large-neighbourhood search: how far above the bound, and how many windows.
    if (p.windows && p.bound_bytes)
      asking = fmt::format(
          ", {:.3f} % above, {} windows",
          100.0 * (static_cast<double>(p.best_bytes) / static_cast<double>(p.bound_bytes) - 1.0),
          p.windows);
    fmt::print(stderr, "\rexact: best {} B, bound {} B{}, {} nodes, {:.1f} s\x1b[K",
               WithThousands(p.best_bytes), WithThousands(p.bound_bytes), asking, p.nodes,
               p.elapsed_s);
    std::fflush(stderr);
  }
};

}  // namespace

void AddExactFlags(CLI::App& cmd, ExactFlags& flags) {
  cmd.add_option("--time-limit", flags.time_limit_s, "seconds for the exact solver (10)")
      ->check(CLI::Range(0.0, 1e6));
  cmd.add_option("--probe-limit", flags.probe_limit_s,
                 "seconds for each capacity the exact solver asks (default: adaptive, starting "
                 "at a 32nd of --time-limit and doubling)")
      ->check(CLI::Range(0.0, 1e6));
  cmd.add_option("--threads", flags.threads,
                 "threads for the exact solver's portfolio (default: every core); the answer "
                 "does not depend on it")
      ->check(CLI::Range(1u, 1024u));
}

ExactOptions MakeExactOptions(const ExactFlags& flags, bool quiet) {
  ExactOptions options;
  options.time_limit = std::chrono::duration<double>(flags.time_limit_s);
  options.per_probe_limit = std::chrono::duration<double>(flags.probe_limit_s);
  options.threads = flags.threads;
  if (!quiet && isatty(STDERR_FILENO)) {
    auto line = std::make_shared<ProgressLine>();
    options.progress = [line](const ExactProgress& p) { line->Show(p); };
  }
  return options;
}

Decision RunDecision(const Workload& workload, Bytes capacity, const ExactOptions& options,
                     const std::string& out) {
  ExactOptions decide = options;
  decide.capacity = capacity;
  const ExactResult result = SolveExact(workload.problem, decide);
  const bool fits = result.plan.has_value();
  if (fits && !out.empty()) {
    StrategyRun run;
    run.mode = "offsets";
    run.strategy = "exact";
    run.bytes = result.plan->arena_bytes;
    run.offsets = result.plan;
    WriteFileAtomically(out, PlanFileJson(workload, run).dump(2) + "\n");
  }
  Decision decision;
  {
    nlohmann::ordered_json& j = decision.json;
    j["input"] = workload.label;
    j["tensors"] = workload.problem.size();
    j["capacity_bytes"] = capacity;
    if (result.status == ExactStatus::kUnknown)
      j["fits"] = nullptr;
    else
      j["fits"] = fits;
    j["proven"] = result.status != ExactStatus::kUnknown;
    if (fits) j["arena_bytes"] = result.plan->arena_bytes;
    j["proven_optimal"] = result.proven_optimal;
    j["bound_bytes"] = result.bound_bytes;
    j["nodes"] = result.nodes;
    j["seconds"] = result.elapsed_s;
  }
  std::string verdict;
  switch (result.status) {
    case ExactStatus::kOptimal:
    case ExactStatus::kGap:
      verdict = fmt::format("fits: arena {} B{}", WithThousands(result.plan->arena_bytes),
                            result.proven_optimal ? ", optimal (proven)" : "");
      break;
    case ExactStatus::kInfeasible:
      verdict = "does not fit (proven: the search was exhausted)";
      break;
    case ExactStatus::kUnknown:
      verdict = "unknown: no plan found and no proof within the limit";
      break;
  }
  decision.line = fmt::format("{}: {} tensors, capacity {} B: {} ({} nodes, {:.2f} s)\n",
                              workload.label, workload.problem.size(), WithThousands(capacity),
                              verdict, result.nodes, result.elapsed_s);
  return decision;
}

}  // namespace memplan::cli

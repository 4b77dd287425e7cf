// memplan verify INPUT --plan PLAN.json: checks a plan file against its input.
#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/offline_check.h"
#include "memplan/plan_check.h"
#include "memplan/records_io.h"
#include "memplan/table.h"
#include "memplan/texture_records.h"
#include "memplan/tflite.h"
#include "memplan/workload.h"
#include "tools/commands.h"
#include "tools/model_options.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

constexpr std::size_t kMaxListed = 100;

struct VerifyOptions {
  std::string input;
  std::string plan;              // empty: check the model's own offline plan
  std::string inplace = "tflm";  // shares an offline plan may use
  std::optional<Bytes> align;
  ModelFlags model;    // how a model input becomes records
  bool quiet = false;  // no progress on stderr
};

// Prints each problem on its own line and fails with a count.
// `noun` counts them ("violation", "difference").
[[noreturn]] void Reject(const std::vector<Violation>& problems, const std::string& what,
                         const char* noun) {
  for (const Violation& v : problems) fmt::print("{}\n", v.message);
  std::fflush(stdout);
  throw InputError(
      fmt::format("{}: {}{}", what,
                  fmt::format("{} {}{}", problems.size(), noun, problems.size() == 1 ? "" : "s"),
                  problems.size() >= kMaxListed ? " (the first ones listed)" : ""));
}

// `verify MODEL.tflite` without --plan: the OfflineMemoryAllocation plan the model
// carries (e.g. from `memplan embed`), checked as TFLM will use it.
void VerifyOfflinePlan(const VerifyOptions& o, const Workload& workload) {
  if (workload.kind != "tflite" || o.model.intermediates_only)
    throw UsageError(
        fmt::format("verify {}: give --plan PLAN.json (only a .tflite model carries its own "
                    "plan, checked in TFLM's accounting)",
                    o.input));
  if (!workload.problem.HasFixed())
    throw InputError(fmt::format("{}: the model carries no {} plan; give --plan PLAN.json", o.input,
                                 kOfflinePlanMetadata));
  const Bytes alignment = o.align.value_or(workload.problem.alignment);
  const OfflineCheck check =
      CheckOfflinePlan(workload, InPlaceRuleSetNamed(o.inplace), alignment, kMaxListed);
  auto violations = check.violations;
  for (Violation& v : violations) v.message = o.input + ": " + v.message;
  for (const std::string& area : check.scratch_areas)
    fmt::print("{}: {} (checked as one buffer)\n", o.input, area);
  if (!violations.empty())
    Reject(violations, fmt::format("{}: the offline plan does not fit the model", o.input),
           "violation");
  fmt::print(
      "{}: OK: the offline plan fits: {} tensors placed{}, arena {} B (lower bound {} B), "
      "{} in-place share{} (rules: {}), alignment {}\n",
      o.input, check.placed,
      check.online ? fmt::format(", {} left to TFLM", check.online) : std::string(),
      WithThousands(check.arena_bytes), WithThousands(check.lower_bound), check.shares,
      check.shares == 1 ? "" : "s", o.inplace, alignment);
}

// A plan file of texture or shape records (plan --out on them): the same tensors, every
// object covering (textures) or equal to (shapes) its records, no two conflicting records
// in one object, the total as claimed.
void VerifyTexturePlan(const VerifyOptions& o, const TextureProblem& problem) {
  const TexturePlanFile file = ParseTexturePlanFile(ReadFileBytes(o.plan), o.plan);
  const auto differences = CompareWithRecords(file, problem, kMaxListed);
  if (!differences.empty())
    Reject(differences, fmt::format("{} does not describe the records of {}", o.plan, o.input),
           "difference");
  auto violations = FindTextureViolations(problem, file.plan, kMaxListed);
  for (Violation& v : violations) v.message = o.plan + ": " + v.message;
  if (!violations.empty())
    Reject(violations, fmt::format("{} does not fit {}", o.plan, o.input), "violation");
  fmt::print("{}: OK: objects/{} fits {}: {} {} records in {} objects, {} elements in all\n",
             o.plan, file.strategy.empty() ? "?" : file.strategy, o.input, problem.size(),
             TextureKindName(problem.kind), file.plan.object_dims.size(),
             WithThousands(file.plan.total_elements));
}

void RunVerify(const VerifyOptions& o) {
  // Reading a large model and rebuilding a variant (--reorder searches) are the slow
  // part; the checks themselves are O(n log n).
  Progress progress("memplan verify", o.quiet);
  progress.Stage("reading " + o.input);
  Workload workload = LoadInput(o.input, ToLoadOptions(o.model), o.model);
  if (workload.textures) {
    if (o.plan.empty()) throw UsageError(fmt::format("verify {}: give --plan PLAN.json", o.input));
    return VerifyTexturePlan(o, *workload.textures);
  }
  if (o.plan.empty()) return VerifyOfflinePlan(o, workload);
  const PlanFileCheck check = CheckPlanFile(std::move(workload), ReadFileBytes(o.plan), o.plan,
                                            o.align, o.model.intermediates_only, kMaxListed);
  progress.Finish();
  if (!check.differences.empty())
    Reject(check.differences,
           fmt::format("{} does not describe the records of {}", o.plan, o.input), "difference");
  if (!check.violations.empty())
    Reject(check.violations, fmt::format("{} does not fit {}", o.plan, o.input), "violation");
  if (check.mode == "objects") {
    fmt::print("{}: OK: {} fits {}: {} tensors in {} objects, {} B in all, alignment {}\n", o.plan,
               check.key, o.input, check.tensors, check.objects, WithThousands(check.total_bytes),
               check.alignment);
    return;
  }
  const Bytes bound = check.lower_bound;
  fmt::print(
      "{}: OK: {} fits {}: {} tensors, arena {} B (lower bound {} B, × {:.3f}), alignment {}\n",
      o.plan, check.key, o.input, check.tensors, WithThousands(check.arena_bytes),
      WithThousands(bound),
      bound == 0 ? 1.0 : static_cast<double>(check.arena_bytes) / static_cast<double>(bound),
      check.alignment);
}

}  // namespace

void AddVerifyCommand(CLI::App& app) {
  auto options = std::make_shared<VerifyOptions>();
  CLI::App* cmd =
      app.add_subcommand("verify", "Check a plan file (from plan --out) or a model's offline plan");
  cmd->add_option("input", options->input, "records .json/.csv, model .tflite/.onnx, or zoo:NAME")
      ->required();
  cmd->add_option("-p,--plan", options->plan,
                  "the plan file (JSON, as plan --out writes it); without it, the offline plan "
                  "a .tflite model carries (memplan embed)");
  AddInplaceOption(*cmd, options->inplace,
                   "without --plan: the in-place rules shared offsets may follow (tflm)");
  AddAlignOption(*cmd, options->align,
                 "alignment to check (default: the plan file's, else the input's)");
  AddModelFlags(*cmd, options->model);
  AddGpuObjectFlags(*cmd, options->model);
  AddQuietFlag(*cmd, options->quiet);
  cmd->callback([options] { RunVerify(*options); });
}

}  // namespace memplan::cli

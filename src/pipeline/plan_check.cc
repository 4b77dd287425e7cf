// A plan file checked against its input (include/memplan/plan_check.h).
#include "memplan/plan_check.h"

#include <fmt/format.h>

#include "memplan/bounds.h"
#include "memplan/plan_file.h"
#include "memplan/plan_report.h"

namespace memplan {

PlanFileCheck CheckPlanFile(Workload workload, std::string_view text, const std::string& source,
                            std::optional<Bytes> align, bool intermediates_only,
                            std::size_t limit) {
  const PlanFile file = ParsePlanFile(text, source);
  // The alignment the plan was made with (planning may have changed the input's).
  if (align)
    workload.problem.alignment = *align;
  else if (file.alignment)
    workload.problem.alignment = *file.alignment;
  // A plan of a transformed problem (in place, reordered) is checked against it.
  const std::optional<Variant> variant =
      VariantOfPlanFile(workload, nlohmann::json::parse(text), source, intermediates_only);
  const Problem& problem = variant ? variant->tensors : workload.problem;
  Validate(problem);
  PlanFileCheck check;
  check.mode = file.mode;
  check.key = fmt::format("{}/{}{}", file.mode, file.strategy.empty() ? "?" : file.strategy,
                          variant ? fmt::format("[{}]", variant->name) : std::string());
  check.tensors = problem.size();
  check.alignment = problem.alignment;
  check.differences = CompareWithProblem(file, problem, workload.label, limit);
  if (!check.differences.empty()) return check;
  if (file.mode == "objects") {
    check.violations = FindObjectsViolations(file, problem, limit);
    check.objects = file.object_sizes.size();
    for (Bytes s : file.object_sizes) check.total_bytes += s;
  } else {
    const OffsetPlan plan = OffsetPlanOf(file, problem);
    check.violations = variant ? FindVariantViolations(*variant, plan, limit)
                               : FindViolations(problem, plan, limit);
    check.arena_bytes = plan.arena_bytes;
    check.lower_bound = OffsetsLowerBound(variant ? variant->merged.problem : problem);
  }
  for (Violation& v : check.violations) v.message = source + ": " + v.message;
  return check;
}

}  // namespace memplan

#include "src/formats/tflite/tflite_workload.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/remedy.h"
#include "memplan/shape_binding.h"
#include "memplan/tflite.h"
#include "memplan/tflite_shapes.h"
#include "memplan/vela.h"

namespace memplan {

Workload LoadTfliteWorkload(std::string_view spec, const LoadOptions& options) {
  return TfliteWorkload(ReadTfliteFile(std::filesystem::path(std::string(spec)), spec), spec,
                        options);
}

Workload TfliteWorkload(TfliteModel model, std::string_view spec, const LoadOptions& options) {
  const Accounting accounting =
      options.intermediates_only ? Accounting::kIntermediatesOnly : Accounting::kTflm;
  // TFLM refuses to run a model whose offline plan it cannot use; so does memplan when it
  // plans as TFLM does. The paper's accounting has no offline plans.
  if (accounting == Accounting::kTflm && model.offline_plan && !model.offline_plan->problem.empty())
    throw InputError(fmt::format("{}: the {} metadata is unusable: {}", spec, kOfflinePlanMetadata,
                                 model.offline_plan->problem));
  if (accounting == Accounting::kIntermediatesOnly) model.graph.fixed_offsets.clear();
  // A .tflite model binds --dim to its inputs' dimensions and propagates the shapes; one
  // whose stored shapes hold a -1 binds --dim as any graph does (a leading -1).
  std::vector<std::string> notes;
  if (auto binding = BindTfliteDimensions(model, options.dims)) {
    notes = std::move(binding->warnings);
    if (binding->resized && !model.graph.fixed_offsets.empty()) {
      // The offsets were chosen for the stored sizes; resized tensors would overlap.
      model.graph.fixed_offsets.clear();
      notes.push_back(fmt::format(
          "note: {}: its inputs are resized, so the offsets of its {} metadata (chosen for the "
          "stored sizes) are not used; every tensor is planned",
          spec, kOfflinePlanMetadata));
    }
    for (std::string& n : ApplyShapeBindings(model.graph, {}, options.shapes))
      notes.push_back(std::move(n));
  } else {
    notes = ApplyShapeBindings(model.graph, options.dims, options.shapes);
  }
  const std::string sized = SizeKernelSizedOutputs(model.graph, options.kernel_sized);
  if (!sized.empty()) notes.push_back("note: " + sized);
  // Vela's aliasing is on purpose: say which tensors live inside a scratch area.
  for (const VelaScratchArea& area : VelaScratchAreas(model.graph))
    if (!area.inside.empty())
      notes.push_back(fmt::format("note: {}: {}", spec, VelaScratchText(model.graph, area)));
  Workload w;
  try {
    w = GraphWorkload(std::move(model.graph), spec, "tflite", options);
  } catch (const InputError& e) {
    // A dimension binding that bound nothing is the likely cause of what cannot be sized: say
    // so with it.
    std::string message = e.what();
    for (const std::string& n : notes)
      if (n.starts_with("warning: ")) message += " (" + n + ")";
    throw InputErrorWithRemedies(message, RemediesOf(e));
  }
  w.notes = std::move(notes);
  return w;
}

}  // namespace memplan

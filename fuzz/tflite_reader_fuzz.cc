// libFuzzer target: any bytes through the .tflite reader, both accountings and two
// strategies, Vela's scratch areas, and shape propagation at batch 3. Only
// InputError may come out; anything else (a crash, a sanitizer report, another exception)
// is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/offsets.h"
#include "memplan/tflite.h"
#include "memplan/tflite_shapes.h"
#include "memplan/vela.h"

namespace {

void PlanIfValid(const memplan::Graph& graph, memplan::Accounting accounting) {
  try {
    const memplan::GraphRecords r = memplan::RecordsFromGraph(graph, {accounting});
    memplan::PlanOffsets(r.problem, "naive");
    memplan::PlanOffsets(r.problem, "greedy_by_size");
  } catch (const memplan::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    memplan::TfliteModel model = memplan::ParseTflite(bytes, "fuzz.tflite");
    PlanIfValid(model.graph, memplan::Accounting::kTflm);
    PlanIfValid(model.graph, memplan::Accounting::kIntermediatesOnly);
    for (const memplan::VelaScratchArea& area : memplan::VelaScratchAreas(model.graph))
      memplan::VelaScratchText(model.graph, area);
    // Then resized (shape propagation): the open batch, or axis 0 of every input.
    memplan::BindTfliteDimensions(model, {{"batch", 3}});
    PlanIfValid(model.graph, memplan::Accounting::kTflm);
  } catch (const memplan::InputError&) {
  }
  return 0;
}

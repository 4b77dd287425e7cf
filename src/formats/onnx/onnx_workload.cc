#include "src/formats/onnx/onnx_workload.h"

#include "memplan/lifetimes.h"
#include "memplan/onnx.h"
#include "memplan/records_io.h"

namespace memplan {

Workload LoadOnnxWorkload(std::string_view spec, const LoadOptions& options) {
  const std::filesystem::path path{std::string(spec)};
  OnnxModel model = ReadOnnx(ReadFileBytes(path), spec, options);
  const Accounting accounting =
      options.intermediates_only ? Accounting::kIntermediatesOnly : Accounting::kTflm;
  GraphRecords records = RecordsFromGraph(model.graph, {accounting});
  Workload w;
  w.label = std::string(spec);
  w.kind = "onnx";
  w.problem = std::move(records.problem);
  w.origins = std::move(records.origins);
  w.ops = records.ops;
  w.graph = std::move(model.graph);
  return w;
}

}  // namespace memplan

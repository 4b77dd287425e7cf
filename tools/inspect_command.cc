// memplan inspect MODEL.tflite|MODEL.onnx|zoo:NAME: what a model holds (subgraphs, ops by type,
// tensors by kind and bytes, metadata) and its offline memory plan checked against the
// lifetimes; the inspection is the library's (include/memplan/inspect.h), the tables are here.
#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/inspect.h"
#include "memplan/split.h"
#include "memplan/table.h"
#include "memplan/text.h"
#include "memplan/tflite_shapes.h"
#include "tools/commands.h"
#include "tools/model_options.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

struct InspectOptions {
  std::string input;
  std::string format = "table";
  ModelFlags model;
  bool quiet = false;  // no progress on stderr
};

std::string PlannedText(const TflmPlannedTensor& p) {
  return fmt::format("'{}' (subgraph {}, tensor {}: {} B at {}, scopes {}..{})", p.name,
                     p.ref.subgraph, p.ref.tensor, p.size, *p.offline_offset, p.first, p.last);
}

std::string InspectionText(const std::string& input, const TfliteInspection& in) {
  const Graph& g = in.model.graph;
  const bool built_in = g.format == "zoo";
  std::string out = fmt::format(
      "{}: {}, {} subgraph{}, {} ops, {} tensors{}\n", input,
      built_in ? "built-in model"
               : fmt::format("TensorFlow Lite schema {}", in.model.schema_version),
      g.subgraphs.size(), g.subgraphs.size() == 1 ? "" : "s", g.OpCount(), g.TensorCount(),
      built_in ? "" : fmt::format(", {} B file", WithThousands(in.model.file_bytes)));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t s = 0; s < g.subgraphs.size(); ++s) {
    const Subgraph& sg = g.subgraphs[s];
    rows.push_back({std::to_string(s), sg.name, std::to_string(sg.tensors.size()),
                    std::to_string(sg.ops.size()), fmt::format("{}", fmt::join(sg.inputs, " ")),
                    fmt::format("{}", fmt::join(sg.outputs, " "))});
  }
  out += RenderTable(
      {{"subgraph", true}, {"name"}, {"tensors", true}, {"ops", true}, {"inputs"}, {"outputs"}},
      rows);
  std::vector<std::pair<std::string, std::size_t>> types(in.ops_by_type.begin(),
                                                         in.ops_by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "ops by type:";
  for (const auto& [type, count] : types) out += fmt::format(" {} {},", type, count);
  if (!types.empty()) out.pop_back();
  out += fmt::format(
      "\ntensors: {} constant ({} B), {} variable ({} B), {} planned ({} B in 16-byte units, "
      "lower bound {} B)\n",
      in.constant_tensors, WithThousands(in.constant_bytes), in.variable_tensors,
      WithThousands(in.variable_bytes), in.planned.size(), WithThousands(in.planned_bytes),
      WithThousands(in.lower_bound));
  for (const TensorRef r : in.unsized)
    out += fmt::format("unsized: '{}' (subgraph {}, tensor {}): {}\n", InspectedTensor(g, r).name,
                       r.subgraph, r.tensor, InspectedTensor(g, r).why_unsized);
  if (!in.open.empty()) {
    out += "open dimensions (--dim NAME=N):";
    for (const TfliteInputDimension& d : in.open)
      out += fmt::format(" {} (stored {}),", d.name, d.stored);
    out.pop_back();
    out += TfliteHasBatchAlias(in.open)
               ? fmt::format("; --dim {}=N binds them all\n", kTfliteBatchAlias)
               : std::string("\n");
  }
  if (in.open.empty() && !in.dims.empty()) {
    // Any input axis resizes, as TensorFlow Lite's ResizeInputTensor allows.
    out += "input dimensions (--dim NAME=N resizes them):";
    for (const TfliteInputDimension& d : in.dims)
      out += fmt::format(" {} (stored {}),", d.name, d.stored);
    out.pop_back();
    out += fmt::format("; --dim {}=N binds every axis 0 stored as 1\n", kTfliteBatchAlias);
  }
  for (const TfliteMetadata& m : in.model.metadata)
    out += fmt::format("metadata: '{}' (buffer {}, {} B)\n", m.name, m.buffer, m.bytes);
  if (const auto split = DescribeSplit(g))
    out += fmt::format(
        "split: {}x{} patch groups (tensors split:r0c0:... to split:r{}c{}:..., {} in all); "
        "ops {}..{} run the stage patch after patch\n",
        split->rows, split->cols, split->rows - 1, split->cols - 1, split->tensors, split->first_op,
        split->last_op);
  if (!in.model.offline_plan) {
    out += "offline plan: none\n";
    return out;
  }
  const OfflinePlan& plan = *in.model.offline_plan;
  out += fmt::format("offline plan: version {}, {} subgraph{}, {} offsets", plan.version,
                     plan.subgraphs, plan.subgraphs == 1 ? "" : "s", plan.offsets.size());
  if (!plan.problem.empty()) return out + fmt::format("; unusable: {}\n", plan.problem);
  const auto fixed =
      std::count_if(in.planned.begin(), in.planned.end(),
                    [](const TflmPlannedTensor& p) { return p.offline_offset.has_value(); });
  out += fmt::format(", {} planned tensors fixed; ", fixed);
  // Vela's aliasing is said apart from the overlaps: it is no fault.
  std::string areas;
  for (const VelaScratchArea& area : in.scratch_areas)
    areas += fmt::format("Vela: {}\n", VelaScratchText(g, area));
  if (in.overlaps.empty() && !in.overlap_check_stopped) return out + "no overlaps\n" + areas;
  out += fmt::format("{}{} overlap{} of buffers alive at the same time:\n", in.overlaps.size(),
                     in.overlap_check_stopped ? "+" : "", in.overlaps.size() == 1 ? "" : "s");
  for (const auto& [a, b] : in.overlaps)
    out +=
        fmt::format("  {} overlaps {}\n", PlannedText(in.planned[a]), PlannedText(in.planned[b]));
  return out + areas;
}

std::string OnnxInspectionText(const std::string& input, const OnnxInspection& in) {
  const OnnxModel& m = in.model;
  const Subgraph& sg = m.graph.subgraphs.at(0);
  std::vector<std::string> opsets;
  for (const auto& [domain, version] : m.opset_imports)
    opsets.push_back(fmt::format("{} {}", domain, version));
  std::string out =
      fmt::format("{}: ONNX IR {}, opsets {}{}\n", input, m.ir_version,
                  opsets.empty() ? "none" : fmt::format("{}", fmt::join(opsets, ", ")),
                  m.producer.empty() ? "" : fmt::format(", from {}", m.producer));
  out += fmt::format(
      "nodes: {} in the file{}, {} folded from constants (not run), {} run; shapes after {} "
      "inference pass{}\n",
      m.file_nodes,
      m.graph_nodes == m.file_nodes
          ? std::string()
          : fmt::format(" ({} once decided Ifs became their branches)", m.graph_nodes),
      m.folded_nodes, m.graph.OpCount(), m.inference_passes, m.inference_passes == 1 ? "" : "es");
  if (m.graph.subgraphs.size() > 1) {
    const std::vector<std::string> callers = SubgraphCallers(m.graph);
    std::vector<std::vector<std::string>> subs;
    for (std::size_t s = 1; s < m.graph.subgraphs.size(); ++s) {
      const Subgraph& sub = m.graph.subgraphs[s];
      subs.push_back({std::to_string(s), PrintableText(sub.name), std::to_string(sub.ops.size()),
                      std::to_string(sub.tensors.size()), callers[s]});
    }
    out += RenderTable({{"subgraph", true}, {"name"}, {"ops", true}, {"tensors", true}, {"run by"}},
                       subs);
  }
  std::vector<std::vector<std::string>> rows;
  const auto add_rows = [&](const std::vector<std::int32_t>& tensors, const char* kind) {
    for (std::int32_t i : tensors) {
      const Tensor& t = sg.tensors[static_cast<std::size_t>(i)];
      rows.push_back({kind, PrintableText(t.name), DataTypeName(t.type), OnnxShapeText(m, t),
                      t.bytes ? WithThousands(*t.bytes) : "?"});
    }
  };
  add_rows(sg.inputs, "input");
  add_rows(sg.outputs, "output");
  out += RenderTable({{"graph"}, {"name"}, {"type"}, {"shape"}, {"bytes", true}}, rows);
  std::vector<std::pair<std::string, std::size_t>> types(in.ops_by_type.begin(),
                                                         in.ops_by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "ops by type:";
  for (const auto& [type, count] : types) out += fmt::format(" {} {},", PrintableText(type), count);
  if (!types.empty()) out.pop_back();
  if (m.unsized_tensors > 0)
    out += fmt::format(
        "\ntensors: {} in all, {} constant ({} B); {} to plan have no size until the open "
        "dimensions are bound (--dim NAME=VALUE, --shape TENSOR=AxBxC): {}\n",
        m.graph.TensorCount(), in.constant_tensors, WithThousands(in.constant_bytes),
        m.unsized_tensors, m.open_sizes);
  else
    out += fmt::format(
        "\ntensors: {} in all, {} constant ({} B), {} planned ({} B, lower bound {} B)\n",
        m.graph.TensorCount(), in.constant_tensors, WithThousands(in.constant_bytes), in.planned,
        WithThousands(in.planned_bytes), WithThousands(in.lower_bound));
  for (const std::string& w : m.warnings) out += w + "\n";
  return out;
}

void RunInspect(const InspectOptions& o) {
  const bool onnx = o.input.ends_with(".onnx") || o.input.ends_with(".ONNX");
  if (!o.input.ends_with(".tflite") && !o.input.ends_with(".TFLITE") && !onnx &&
      !o.input.starts_with("zoo:"))
    throw UsageError(
        fmt::format("{}: inspect reads .tflite and .onnx models and zoo:NAME", o.input));
  Progress progress("memplan inspect", o.quiet);
  progress.Stage("reading " + o.input);
  const LoadOptions load = ToLoadOptions(o.model);
  if (onnx) {
    const OnnxInspection in =
        NamingFlags("--dim, --shape", [&] { return InspectOnnx(o.input, load); });
    progress.Finish();
    if (o.format == "json")
      fmt::print("{}\n", OnnxInspectionJson(o.input, in).dump(2));
    else
      fmt::print("{}", OnnxInspectionText(o.input, in));
    return;
  }
  const TfliteInspection in =
      NamingFlags("--dim, --shape", [&] { return InspectTflite(o.input, load); });
  progress.Finish();
  for (const std::string& w : in.warnings) fmt::print(stderr, "memplan: {}\n", w);
  if (o.format == "json")
    fmt::print("{}\n", TfliteInspectionJson(o.input, in).dump(2));
  else
    fmt::print("{}", InspectionText(o.input, in));
}

}  // namespace

void AddInspectCommand(CLI::App& app) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Show what a model holds and check its offline memory plan, if any");
  cmd->add_option("model", options->input, "a .tflite or .onnx model, or zoo:NAME")->required();
  AddFormatOption(*cmd, options->format, {"table", "json"});
  AddModelFlags(*cmd, options->model, /*with_accounting=*/false);
  AddQuietFlag(*cmd, options->quiet);
  cmd->callback([options] { RunInspect(*options); });
}

}  // namespace memplan::cli

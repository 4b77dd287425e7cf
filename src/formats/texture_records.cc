// Texture and shape records in JSON and CSV (include/memplan/texture_records.h).
#include "memplan/texture_records.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "src/formats/csv_fields.h"
#include "src/formats/json_text.h"

namespace memplan {

namespace {

using Json = nlohmann::json;

// TensorFlow Lite GPU plans 2-D and 3-D textures (uint2, uint3); shapes may have any rank.
void CheckRank(TextureKind kind, std::size_t rank, std::string_view source,
               const std::string& where) {
  if (kind == TextureKind::kTexture && (rank < 2 || rank > 3))
    throw InputError(fmt::format(
        "{}: {}: a texture has 2 or 3 dimensions (width, height[, depth]), got {}{}", source, where,
        rank, rank == 4 ? "; for BHWC shapes give \"size_type\": \"shape\"" : ""));
  if (rank == 0) throw InputError(fmt::format("{}: {}: a size needs a dimension", source, where));
}

std::vector<std::uint64_t> Dims(const Json& value, TextureKind kind, std::string_view source,
                                const std::string& where) {
  if (!value.is_array())
    throw InputError(fmt::format("{}: {}: expected a size with dimensions such as [2, 8], got {}",
                                 source, where, value.dump()));
  std::vector<std::uint64_t> dims;
  for (const Json& d : value) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() == 0)
      throw InputError(fmt::format("{}: {}: every dimension must be a positive integer, got {}",
                                   source, where, value.dump()));
    dims.push_back(d.get<std::uint64_t>());
  }
  CheckRank(kind, dims.size(), source, where);
  return dims;
}

Step StepOf(const Json& value, std::string_view source, const std::string& where) {
  if (!value.is_number_integer())
    throw InputError(
        fmt::format("{}: {}: expected an integer step, got {}", source, where, value.dump()));
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw InputError(fmt::format("{}: {}: {} is too large", source, where, value.dump()));
  return value.get<std::int64_t>();
}

// A record is [size, first, last] or {"size": ..., "first": ..., "last": ..., "name": ...}.
bool HasDimensions(const Json& record) {
  if (record.is_object()) return true;
  return record.is_array() && !record.empty() && record[0].is_array();
}

void CheckValid(const TextureProblem& problem, std::string_view source) {
  try {
    Validate(problem);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
}

}  // namespace

std::string_view TextureKindName(TextureKind kind) {
  return kind == TextureKind::kShape ? "shape" : "texture";
}

std::optional<TextureProblem> ParseTextureRecordsJson(std::string_view text,
                                                      std::string_view source) {
  const Json doc = ParseJsonText(text, source);
  if (!doc.is_object() || !doc.contains("records") || !doc["records"].is_array())
    return std::nullopt;  // not records at all: ParseRecordsJson says what is wrong
  const Json& records = doc["records"];
  const bool typed = doc.contains("size_type");
  if (!typed && (records.empty() || !HasDimensions(records[0]))) return std::nullopt;

  TextureProblem problem;
  if (typed) {
    const Json& type = doc["size_type"];
    const std::string name = type.is_string() ? type.get<std::string>() : type.dump();
    if (name == "shape" || name == "bhwc")
      problem.kind = TextureKind::kShape;
    else if (name != "texture")
      throw InputError(fmt::format(
          "{}: \"size_type\" must be \"texture\" (2-D or 3-D extents) or \"shape\" (BHWC), "
          "got {}",
          source, type.dump()));
  }
  bool named = false;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Json& r = records[i];
    const std::string where = fmt::format("records[{}]", i);
    TextureRecord record;
    std::string name;
    if (r.is_object()) {
      for (const char* key : {"size", "first", "last"})
        if (!r.contains(key))
          throw InputError(fmt::format("{}: {}: missing \"{}\"", source, where, key));
      record.dims = Dims(r["size"], problem.kind, source, where);
      record.first = StepOf(r["first"], source, where);
      record.last = StepOf(r["last"], source, where);
      if (r.contains("name")) {
        if (!r["name"].is_string())
          throw InputError(fmt::format("{}: {}: \"name\" must be a string", source, where));
        name = r["name"].get<std::string>();
        named = true;
      }
    } else if (r.is_array() && r.size() == 3) {
      record.dims = Dims(r[0], problem.kind, source, where);
      record.first = StepOf(r[1], source, where);
      record.last = StepOf(r[2], source, where);
    } else {
      throw InputError(
          fmt::format("{}: {}: expected [[w, h], first, last] or {{\"size\": ..., "
                      "\"first\": ..., \"last\": ...}}, got {}",
                      source, where, r.dump()));
    }
    problem.records.push_back(std::move(record));
    problem.names.push_back(name.empty() ? std::to_string(i) : std::move(name));
  }
  if (doc.contains("names") && !doc["names"].is_null()) {
    const Json& names = doc["names"];
    if (named || !names.is_array() || names.size() != records.size())
      throw InputError(fmt::format(
          "{}: \"names\" must list one name per record (and records then carry none)", source));
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!names[i].is_string())
        throw InputError(fmt::format("{}: names[{}]: expected a string", source, i));
      problem.names[i] = names[i].get<std::string>();
    }
  }
  CheckValid(problem, source);
  return problem;
}

std::optional<TextureProblem> ParseTextureRecordsCsv(std::string_view text,
                                                     std::string_view source) {
  const std::vector<std::string_view> lines = formats::Lines(text);
  std::size_t header_line = 0;
  while (header_line < lines.size() && formats::Trim(lines[header_line]).empty()) ++header_line;
  if (header_line == lines.size()) return std::nullopt;
  std::map<std::string, std::size_t, std::less<>> column;
  const auto header = formats::SplitLine(lines[header_line]);
  for (std::size_t c = 0; c < header.size(); ++c) column.emplace(std::string(header[c].text), c);
  if (column.count("size")) return std::nullopt;  // MiniMalloc's CSV

  TextureProblem problem;
  std::vector<std::string_view> dim_names;
  if (column.count("width") && column.count("height")) {
    dim_names = {"width", "height"};
    if (column.count("depth")) dim_names.push_back("depth");
  } else if (column.count("b") && column.count("h") && column.count("w") && column.count("c")) {
    problem.kind = TextureKind::kShape;
    dim_names = {"b", "h", "w", "c"};
  } else {
    return std::nullopt;
  }
  for (const char* required : {"lower", "upper"})
    if (!column.count(required))
      throw InputError(
          fmt::format("{}:{}:1: the header has no '{}' column", source, header_line + 1, required));
  const auto at = [&](std::string_view name) { return column.find(name)->second; };
  // Without an id column records are named by their position.
  const std::size_t no_id = header.size();
  const std::size_t id_col = column.count("id") ? at("id") : no_id;
  for (std::size_t li = header_line + 1; li < lines.size(); ++li) {
    if (formats::Trim(lines[li]).empty()) continue;
    const std::size_t line = li + 1;
    const auto fields = formats::SplitLine(lines[li]);
    if (fields.size() < header.size())
      throw InputError(fmt::format("{}:{}:{}: expected {} fields, found {}", source, line,
                                   lines[li].size() + 1, header.size(), fields.size()));
    const std::int64_t lower = formats::Integer(fields[at("lower")], source, line, "lower");
    const std::int64_t upper = formats::Integer(fields[at("upper")], source, line, "upper");
    if (lower < 0 || upper <= lower)
      throw InputError(fmt::format("{}:{}:{}: lifetime [{}, {}) is empty or negative", source, line,
                                   fields[at("lower")].column, lower, upper));
    TextureRecord record;
    record.first = lower;
    record.last = upper - 1;
    for (std::string_view name : dim_names) {
      const formats::Field& f = fields[at(name)];
      const std::int64_t d = formats::Integer(f, source, line, name);
      if (d < 1)
        throw InputError(
            fmt::format("{}:{}:{}: {} {} must be at least 1", source, line, f.column, name, d));
      record.dims.push_back(static_cast<std::uint64_t>(d));
    }
    problem.records.push_back(std::move(record));
    problem.names.emplace_back(id_col != no_id ? std::string(fields[id_col].text)
                                               : std::to_string(problem.records.size() - 1));
  }
  CheckValid(problem, source);
  return problem;
}

TexturePlanFile ParseTexturePlanFile(std::string_view text, std::string_view source) {
  const Json doc = ParseJsonText(text, source);
  if (!doc.is_object() || doc.value("mode", "") != "objects" || !doc.contains("size_type") ||
      !doc.contains("objects") || !doc["objects"].is_array() || !doc.contains("tensors") ||
      !doc["tensors"].is_array())
    throw InputError(
        fmt::format("{}: not a texture plan file (expected {{\"mode\": \"objects\", \"size_type\", "
                    "\"objects\": [[w, h], ...], \"tensors\": [...]}}, the best plan of texture "
                    "records as memplan writes it)",
                    source));
  TexturePlanFile file;
  const Json& type = doc["size_type"];
  if (type == "shape")
    file.kind = TextureKind::kShape;
  else if (type != "texture")
    throw InputError(fmt::format("{}: \"size_type\" must be \"texture\" or \"shape\", got {}",
                                 source, type.dump()));
  if (doc.contains("strategy") && doc["strategy"].is_string())
    file.strategy = doc["strategy"].get<std::string>();
  for (std::size_t k = 0; k < doc["objects"].size(); ++k)
    file.plan.object_dims.push_back(
        Dims(doc["objects"][k], file.kind, source, fmt::format("objects[{}]", k)));
  if (!doc.contains("total_elements") || !doc["total_elements"].is_number_unsigned())
    throw InputError(fmt::format("{}: missing \"total_elements\"", source));
  file.plan.total_elements = doc["total_elements"].get<std::uint64_t>();
  for (std::size_t i = 0; i < doc["tensors"].size(); ++i) {
    const Json& t = doc["tensors"][i];
    const std::string where = fmt::format("tensors[{}]", i);
    if (!t.is_object() || !t.contains("dims") || !t.contains("first") || !t.contains("last") ||
        !t.contains("object") || !t["object"].is_number_unsigned())
      throw InputError(fmt::format("{}: {}: expected {{\"dims\", \"first\", \"last\", \"object\"}}",
                                   source, where));
    TextureRecord r;
    r.dims = Dims(t["dims"], file.kind, source, where);
    r.first = StepOf(t["first"], source, where);
    r.last = StepOf(t["last"], source, where);
    file.tensors.push_back(std::move(r));
    file.plan.object_ids.push_back(t["object"].get<std::uint64_t>());
  }
  file.plan.strategy = file.strategy;
  return file;
}

std::vector<Violation> CompareWithRecords(const TexturePlanFile& file,
                                          const TextureProblem& problem, std::size_t limit) {
  std::vector<Violation> out;
  if (file.kind != problem.kind)
    out.push_back({fmt::format("the plan is for {} records, the input has {} records",
                               TextureKindName(file.kind), TextureKindName(problem.kind))});
  if (file.tensors.size() != problem.size())
    out.push_back({fmt::format("the plan has {} tensors, the input {} records", file.tensors.size(),
                               problem.size())});
  for (std::size_t i = 0; i < std::min(file.tensors.size(), problem.size()) && out.size() < limit;
       ++i) {
    const TextureRecord& a = file.tensors[i];
    const TextureRecord& b = problem.records[i];
    if (a.dims != b.dims || a.first != b.first || a.last != b.last)
      out.push_back({fmt::format("tensor {}: the plan says {} over steps {}..{}, the input {}", i,
                                 fmt::join(a.dims, "x"), a.first, a.last, problem.Describe(i))});
  }
  return out;
}

}  // namespace memplan

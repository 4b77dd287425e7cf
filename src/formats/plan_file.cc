// Reading plan files back (the format `memplan plan --out` writes).
#include "memplan/plan_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "src/formats/json_text.h"

namespace memplan {

namespace {

using Json = nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void Fail(const std::string& where, const std::string& what) const {
    throw InputError(fmt::format("{}: {}: {}", source_, where, what));
  }

  Bytes Unsigned(const Json& v, const std::string& where) const {
    if (v.is_number_unsigned()) return v.get<Bytes>();
    if (v.is_number_integer()) Fail(where, fmt::format("{} is negative", v.dump()));
    Fail(where, fmt::format("expected a non-negative integer, got {}", v.dump()));
  }

  Step Signed(const Json& v, const std::string& where) const {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      Fail(where, fmt::format("{} is too large", v.dump()));
    if (v.is_number_integer()) return v.get<Step>();
    Fail(where, fmt::format("expected an integer, got {}", v.dump()));
  }

  std::optional<Bytes> OptionalUnsigned(const Json& obj, const char* key,
                                        const std::string& where) const {
    if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
    return Unsigned(obj[key], where + "." + key);
  }

 private:
  std::string_view source_;
};

}  // namespace

PlanFile ParsePlanFile(std::string_view text, std::string_view source) {
  Json doc = ParseJsonText(text, source);
  const Reader in(source);
  if (!doc.is_object())
    throw InputError(
        fmt::format("{}: expected a plan object {{\"mode\": ..., \"tensors\": [...]}}", source));
  PlanFile file;
  file.source = std::string(source);
  if (!doc.contains("mode") || !doc["mode"].is_string())
    in.Fail("mode", "missing; expected \"offsets\" or \"objects\"");
  file.mode = doc["mode"].get<std::string>();
  if (file.mode != "offsets" && file.mode != "objects")
    in.Fail("mode",
            fmt::format("unknown mode '{}'; expected \"offsets\" or \"objects\"", file.mode));
  if (doc.contains("strategy") && doc["strategy"].is_string())
    file.strategy = doc["strategy"].get<std::string>();
  file.arena_bytes = in.OptionalUnsigned(doc, "arena_bytes", "plan");
  file.alignment = in.OptionalUnsigned(doc, "alignment", "plan");
  if (file.alignment && *file.alignment == 0) in.Fail("alignment", "must be at least 1");
  // Validate's limit, checked here so `verify` names the plan file rather than the input.
  if (file.alignment && *file.alignment > (Bytes{1} << 40))
    in.Fail("alignment", fmt::format("{} is absurdly large (limit 2^40)", *file.alignment));
  if (!doc.contains("tensors") || !doc["tensors"].is_array())
    in.Fail("tensors", "missing; expected a list with one entry per tensor");
  const bool objects = file.mode == "objects";
  if (objects) {
    if (!doc.contains("objects") || !doc["objects"].is_array())
      in.Fail("objects", "missing; an objects plan lists its object sizes");
    for (std::size_t k = 0; k < doc["objects"].size(); ++k)
      file.object_sizes.push_back(in.Unsigned(doc["objects"][k], fmt::format("objects[{}]", k)));
  }
  const Json& tensors = doc["tensors"];
  file.tensors.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Json& t = tensors[i];
    const std::string where = fmt::format("tensors[{}]", i);
    if (!t.is_object()) in.Fail(where, fmt::format("expected an object, got {}", t.dump()));
    PlanFileTensor entry;
    if (auto index = in.OptionalUnsigned(t, "index", where)) entry.index = *index;
    if (t.contains("name") && !t["name"].is_null()) {
      if (!t["name"].is_string()) in.Fail(where + ".name", "expected a string");
      entry.name = t["name"].get<std::string>();
    }
    entry.size = in.OptionalUnsigned(t, "size", where);
    if (t.contains("first")) entry.first = in.Signed(t["first"], where + ".first");
    if (t.contains("last")) entry.last = in.Signed(t["last"], where + ".last");
    const char* placement = objects ? "object" : "offset";
    if (!t.contains(placement)) in.Fail(where, fmt::format("missing \"{}\"", placement));
    const Bytes value = in.Unsigned(t[placement], where + "." + placement);
    if (objects)
      entry.object = static_cast<std::size_t>(value);
    else
      entry.offset = value;
    file.tensors.push_back(std::move(entry));
  }
  return file;
}

std::vector<Violation> CompareWithProblem(const PlanFile& file, const Problem& problem,
                                          std::string_view input, std::size_t limit) {
  std::vector<Violation> out;
  if (file.tensors.size() != problem.size()) {
    out.push_back({fmt::format("{} lists {} tensors but {} has {} records", file.source,
                               file.tensors.size(), input, problem.size())});
    return out;
  }
  auto differs = [&](std::size_t i, const char* what, const std::string& plan_value,
                     const std::string& input_value) {
    if (out.size() < limit)
      out.push_back(
          {fmt::format("{}: tensors[{}] ('{}'): {} is {} in the plan but {} in {}", file.source, i,
                       problem.NameOf(i), what, plan_value, input_value, input)});
  };
  for (std::size_t i = 0; i < problem.size() && out.size() < limit; ++i) {
    const PlanFileTensor& t = file.tensors[i];
    const UsageRecord& r = problem.records[i];
    if (t.index && *t.index != i)
      differs(i, "the index", fmt::format("{}", *t.index), fmt::format("{}", i));
    if (t.name && *t.name != problem.NameOf(i))
      differs(i, "the name", fmt::format("'{}'", *t.name), fmt::format("'{}'", problem.NameOf(i)));
    if (t.size && *t.size != r.size)
      differs(i, "the size", fmt::format("{} B", *t.size), fmt::format("{} B", r.size));
    if ((t.first && *t.first != r.first) || (t.last && *t.last != r.last))
      differs(i, "the lifetime",
              fmt::format("{}..{}", t.first.value_or(r.first), t.last.value_or(r.last)),
              fmt::format("{}..{}", r.first, r.last));
  }
  return out;
}

OffsetPlan OffsetPlanOf(const PlanFile& file, const Problem& problem) {
  if (file.mode != "offsets")
    throw InputError(fmt::format("{}: a {} plan has no offsets", file.source, file.mode));
  std::vector<Bytes> offsets;
  offsets.reserve(file.tensors.size());
  for (const PlanFileTensor& t : file.tensors) offsets.push_back(t.offset.value_or(0));
  OffsetPlan plan;
  plan.strategy = file.strategy;
  plan.offsets = std::move(offsets);
  // A plan file without "arena_bytes" claims nothing, so there is nothing to contradict.
  plan.arena_bytes = file.arena_bytes                        ? *file.arena_bytes
                     : plan.offsets.size() == problem.size() ? ArenaBytes(problem, plan.offsets)
                                                             : 0;
  return plan;
}

std::vector<Violation> FindObjectsViolations(const PlanFile& file, const Problem& problem,
                                             std::size_t limit) {
  std::vector<Violation> out;
  const std::size_t n = std::min(problem.size(), file.tensors.size());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n && out.size() < limit; ++i) {
    const std::size_t object = file.tensors[i].object.value_or(0);
    if (object >= file.object_sizes.size()) {
      out.push_back({fmt::format("{}: {} is in object {} but the plan has {} objects", file.source,
                                 problem.Describe(i), object, file.object_sizes.size())});
    } else if (problem.records[i].size > file.object_sizes[object]) {
      out.push_back({fmt::format("too small: {} is in object {} of only {} B", problem.Describe(i),
                                 object, file.object_sizes[object])});
    } else if (problem.records[i].size > 0) {
      order.push_back(i);
    }
  }
  // Within one object the lifetimes must be disjoint: sorted by first step, each record
  // must start after every earlier one in the object has ended.
  auto object_of = [&](std::size_t i) { return *file.tensors[i].object; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(object_of(a), problem.records[a].first, a) <
           std::tuple(object_of(b), problem.records[b].first, b);
  });
  std::size_t latest = 0;  // the record ending last so far in the current object
  for (std::size_t k = 0; k < order.size() && out.size() < limit; ++k) {
    const std::size_t i = order[k];
    if (k == 0 || object_of(order[k - 1]) != object_of(i)) {
      latest = i;
      continue;
    }
    if (problem.records[latest].last >= problem.records[i].first)
      out.push_back({fmt::format("shared: {} and {} are alive at the same step but share object {}",
                                 problem.Describe(latest), problem.Describe(i), object_of(i))});
    if (problem.records[i].last > problem.records[latest].last) latest = i;
  }
  return out;
}

}  // namespace memplan

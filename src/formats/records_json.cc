// memplan's records JSON: {"records": [[size, first, last], ...], ...}.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "src/formats/json_text.h"

namespace memplan {

namespace {

using Json = nlohmann::json;

std::int64_t SignedInteger(const Json& value, std::string_view source, const std::string& where) {
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw InputError(fmt::format("{}: {}: {} is too large", source, where, value.dump()));
    return value.get<std::int64_t>();
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  throw InputError(fmt::format("{}: {}: expected an integer, got {}", source, where, value.dump()));
}

Bytes Size(const Json& value, std::string_view source, const std::string& where) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer())
    throw InputError(fmt::format("{}: {}: size {} is negative", source, where, value.dump()));
  throw InputError(
      fmt::format("{}: {}: expected a size in bytes, got {}", source, where, value.dump()));
}

}  // namespace

Problem ParseRecordsJson(std::string_view text, std::string_view source) {
  Json doc = ParseJsonText(text, source);
  if (!doc.is_object())
    throw InputError(fmt::format("{}: expected a JSON object with \"records\"", source));
  if (!doc.contains("records") || !doc["records"].is_array())
    throw InputError(fmt::format("{}: missing \"records\": [[size, first, last], ...]", source));

  Problem problem;
  const Json& records = doc["records"];
  problem.records.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Json& r = records[i];
    const std::string where = fmt::format("records[{}]", i);
    if (!r.is_array() || r.size() != 3)
      throw InputError(
          fmt::format("{}: {}: expected [size, first, last], got {}", source, where, r.dump()));
    UsageRecord rec;
    rec.size = Size(r[0], source, where);
    rec.first = SignedInteger(r[1], source, where);
    rec.last = SignedInteger(r[2], source, where);
    problem.records.push_back(rec);
  }
  if (doc.contains("alignment")) {
    const Json& a = doc["alignment"];
    problem.alignment = Size(a, source, "alignment");
    if (problem.alignment == 0)
      throw InputError(fmt::format("{}: alignment must be at least 1", source));
  }
  if (doc.contains("fixed_offsets") && !doc["fixed_offsets"].is_null()) {
    const Json& f = doc["fixed_offsets"];
    if (!f.is_array() || f.size() != problem.records.size())
      throw InputError(
          fmt::format("{}: \"fixed_offsets\" must list one offset (or -1) per record", source));
    for (std::size_t i = 0; i < f.size(); ++i) {
      const std::int64_t v = SignedInteger(f[i], source, fmt::format("fixed_offsets[{}]", i));
      if (v < -1)
        throw InputError(
            fmt::format("{}: fixed_offsets[{}]: {} is negative (use -1 for none)", source, i, v));
      problem.fixed_offsets.push_back(v == -1 ? std::nullopt
                                              : std::optional<Bytes>(static_cast<Bytes>(v)));
    }
    if (!problem.HasFixed()) problem.fixed_offsets.clear();
  }
  if (doc.contains("names") && !doc["names"].is_null()) {
    const Json& names = doc["names"];
    if (!names.is_array() || names.size() != problem.records.size())
      throw InputError(fmt::format("{}: \"names\" must list one name per record", source));
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!names[i].is_string())
        throw InputError(fmt::format("{}: names[{}]: expected a string", source, i));
      problem.names.push_back(names[i].get<std::string>());
    }
  }
  try {
    Validate(problem);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
  return problem;
}

}  // namespace memplan

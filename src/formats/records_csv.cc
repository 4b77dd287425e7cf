// MiniMalloc's CSV: id,lower,upper,size with half-open lifetimes [lower, upper).
#include <fmt/format.h>

#include <charconv>
#include <map>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "src/formats/csv_fields.h"

namespace memplan {

using formats::Field;
using formats::Integer;
using formats::SplitLine;
using formats::Trim;

Problem ParseRecordsCsv(std::string_view text, std::string_view source) {
  const std::vector<std::string_view> lines = formats::Lines(text);
  std::size_t header_line = 0;
  while (header_line < lines.size() && Trim(lines[header_line]).empty()) ++header_line;
  if (header_line == lines.size())
    throw InputError(fmt::format("{}: empty CSV: expected a header id,lower,upper,size", source));

  std::map<std::string, std::size_t, std::less<>> column;
  const auto header = SplitLine(lines[header_line]);
  for (std::size_t c = 0; c < header.size(); ++c) column.emplace(std::string(header[c].text), c);
  for (const char* required : {"lower", "size"})
    if (!column.count(required))
      throw InputError(
          fmt::format("{}:{}:1: the header has no '{}' column (expected "
                      "id,lower,upper,size)",
                      source, header_line + 1, required));
  // MiniMalloc reads an 'end' column as an inclusive end instead of 'upper'.
  const bool inclusive_end = !column.count("upper") && column.count("end");
  if (!column.count("upper") && !inclusive_end)
    throw InputError(
        fmt::format("{}:{}:1: the header has no 'upper' column (expected "
                    "id,lower,upper,size)",
                    source, header_line + 1));
  auto col = [&](std::string_view name) -> std::optional<std::size_t> {
    auto it = column.find(name);
    return it == column.end() ? std::nullopt : std::optional(it->second);
  };
  const auto id_col = col("id"), lower_col = col("lower"), size_col = col("size");
  const auto upper_col = inclusive_end ? col("end") : col("upper");
  const auto align_col = col("alignment"), offset_col = col("offset");

  Problem problem;
  std::optional<Bytes> alignment;
  for (std::size_t li = header_line + 1; li < lines.size(); ++li) {
    if (Trim(lines[li]).empty()) continue;
    const std::size_t line = li + 1;
    const auto fields = SplitLine(lines[li]);
    if (fields.size() < header.size())
      throw InputError(fmt::format("{}:{}:{}: expected {} fields, found {}", source, line,
                                   lines[li].size() + 1, header.size(), fields.size()));
    const std::int64_t lower = Integer(fields[*lower_col], source, line, "lower");
    const std::int64_t upper =
        Integer(fields[*upper_col], source, line, inclusive_end ? "end" : "upper");
    const std::int64_t size = Integer(fields[*size_col], source, line, "size");
    if (size < 0)
      throw InputError(fmt::format("{}:{}:{}: size {} is negative", source, line,
                                   fields[*size_col].column, size));
    // Compared before `upper - 1`, which overflows for upper = INT64_MIN.
    if (lower < 0 || (inclusive_end ? upper < lower : upper <= lower))
      throw InputError(fmt::format("{}:{}:{}: lifetime [{}, {}{} is empty or negative", source,
                                   line, fields[*lower_col].column, lower, upper,
                                   inclusive_end ? "]" : ")"));
    const std::int64_t last = inclusive_end ? upper : upper - 1;
    problem.records.push_back({static_cast<Bytes>(size), lower, last});
    problem.names.emplace_back(id_col ? std::string(fields[*id_col].text)
                                      : std::to_string(problem.records.size() - 1));
    if (align_col) {
      const std::int64_t a = Integer(fields[*align_col], source, line, "alignment");
      if (a < 1)
        throw InputError(fmt::format("{}:{}:{}: alignment {} must be at least 1", source, line,
                                     fields[*align_col].column, a));
      // One arena alignment: records asking for different ones get the largest, which
      // satisfies every smaller power of two.
      alignment = std::max(alignment.value_or(1), static_cast<Bytes>(a));
    }
    if (offset_col) {
      const Field& f = fields[*offset_col];
      if (f.text.empty() || f.text == "-1") {
        problem.fixed_offsets.emplace_back();
      } else {
        const std::int64_t o = Integer(f, source, line, "offset");
        if (o < 0)
          throw InputError(
              fmt::format("{}:{}:{}: offset {} is negative", source, line, f.column, o));
        problem.fixed_offsets.emplace_back(static_cast<Bytes>(o));
      }
    }
  }
  if (alignment) problem.alignment = *alignment;
  if (!problem.HasFixed()) problem.fixed_offsets.clear();
  try {
    Validate(problem);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
  return problem;
}

std::string FormatRecordsCsv(const Problem& problem, const std::vector<Bytes>* offsets) {
  std::string out = offsets ? "id,lower,upper,size,offset\n" : "id,lower,upper,size\n";
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    out += fmt::format("{},{},{},{}", problem.NameOf(i), r.first, r.last + 1, r.size);
    if (offsets) out += fmt::format(",{}", (*offsets)[i]);
    out += '\n';
  }
  return out;
}

}  // namespace memplan

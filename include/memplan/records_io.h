#pragma once
// Records files: memplan's records JSON and MiniMalloc's CSV, plus file helpers
// shared by every reader and writer (whole-file reads, atomic writes).

#include <filesystem>
#include <string>
#include <string_view>

#include "memplan/problem.h"

namespace memplan {

// Reads a whole file; InputError naming the file when it cannot.
std::string ReadFileBytes(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path`, then renames it over `path`,
// so readers never see a half-written file. InputError naming the file on failure.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

// {"records": [[size, first, last], ...], "alignment": N, "fixed_offsets": [o or -1],
//  "names": [...]}; only "records" is required; intervals inclusive. `source` names the
// input in messages ("file.json:3:14: ...").
Problem ParseRecordsJson(std::string_view text, std::string_view source);

// MiniMalloc CSV: a header naming id, lower, upper, size (any order; lifetimes
// half-open [lower, upper)), optional alignment and offset columns. Extra columns are
// ignored. Ids become names.
Problem ParseRecordsCsv(std::string_view text, std::string_view source);

// The records as MiniMalloc CSV (id,lower,upper,size[,offset]), for exchanging
// problems and plans with MiniMalloc.
std::string FormatRecordsCsv(const Problem& problem, const std::vector<Bytes>* offsets = nullptr);

// Line and column (both from 1) of a byte position in `text`.
std::pair<std::size_t, std::size_t> LineColumn(std::string_view text, std::size_t position);

}  // namespace memplan

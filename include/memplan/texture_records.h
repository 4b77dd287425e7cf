#pragma once
// Records whose sizes have dimensions: GPU textures (2-D width×height, 3-D
// width×height×depth) and tensor shapes (BHWC), in memplan's records JSON and in CSV.
// docs/formats.md describes both; docs/objects.md the strategies that plan them.
//
//   {"size_type": "texture", "records": [[[2, 8], 0, 1], {"size": [1, 12], "first": 2,
//    "last": 4, "name": "t2"}, ...]}
//   {"size_type": "shape", "records": [[[1, 1, 2, 8], 0, 1], ...]}
//
//   id,lower,upper,width,height[,depth]      (textures; lifetimes half-open, as MiniMalloc's)
//   id,lower,upper,b,h,w,c                   (BHWC shapes)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/plan.h"
#include "memplan/textures.h"

namespace memplan {

// The records of a JSON records file when its sizes have dimensions (an array per size, or
// "size_type": "texture" / "shape"); std::nullopt for a file of sizes in bytes, which
// ParseRecordsJson reads. InputError naming the file, the record and what is wrong.
std::optional<TextureProblem> ParseTextureRecordsJson(std::string_view text,
                                                      std::string_view source);

// The records of a CSV file whose header has width/height[/depth] or b/h/w/c columns
// instead of size; std::nullopt for a MiniMalloc CSV with a size column.
std::optional<TextureProblem> ParseTextureRecordsCsv(std::string_view text,
                                                     std::string_view source);

// "texture" or "shape".
std::string_view TextureKindName(TextureKind kind);

// A texture plan file as `plan --out` writes it for texture or shape records:
// {"mode": "objects", "size_type", "strategy", "total_elements", "objects": [[w, h], ...],
//  "tensors": [{"index", "name", "dims", "first", "last", "object"}]}.
struct TexturePlanFile {
  TextureKind kind = TextureKind::kTexture;  // from "size_type"
  std::string strategy;                      // may be empty
  TexturePlan plan;                          // ids from the tensors, objects, the claimed total
  std::vector<TextureRecord> tensors;        // what the file says each tensor is
};

// InputError "source:line:column: ..." for malformed JSON or a file of another kind.
TexturePlanFile ParseTexturePlanFile(std::string_view text, std::string_view source);

// Where the file's tensors differ from the records (count, kind, dims, lifetimes), up to
// `limit`, each naming the tensor.
std::vector<Violation> CompareWithRecords(const TexturePlanFile& file,
                                          const TextureProblem& problem, std::size_t limit);

}  // namespace memplan

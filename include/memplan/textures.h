#pragma once
// Shared objects with multidimensional sizes: GPU textures (2-D width×height, 3-D
// width×height×depth) and tensor shapes (e.g. BHWC). A texture's extent is fixed when
// it is created, so a record fits an object only if the object covers it in every
// dimension; a shape-sized object holds only records of exactly its shape. The cost
// is the sum of the objects' element counts (product of their dimensions).
//
// TensorFlow Lite GPU supports, per size type: shapes (BHWC) naive and equality (hash
// variant); 2-D/3-D textures naive, equality (linear variant) and greedy_in_order (the
// multidimensional covering variant, used by its OpenGL backend).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/plan.h"
#include "memplan/problem.h"

namespace memplan {

// How an object's dimensions relate to its records'.
enum class TextureKind {
  kShape,    // a tensor shape (BHWC...): an object holds records of exactly its shape
  kTexture,  // a texture extent: an object holds records it covers in every dimension
};

// One tensor's need for a texture or shape-sized object from step first to step last.
struct TextureRecord {
  std::vector<std::uint64_t> dims;  // extent per dimension (x, y[, z]) or shape (b, h, w, c)
  Step first = 0;                   // first step that writes or reads the tensor
  Step last = 0;                    // last step that reads it (inclusive)
};

struct TextureProblem {
  TextureKind kind = TextureKind::kTexture;  // how sizes compare
  std::vector<TextureRecord> records;        // one per tensor; all with the same rank
  std::vector<std::string> names;            // empty, or one per record (for messages)
  // Bytes one element takes when the records say (e.g. 16 for an RGBA float32 texel, from a
  // model laid out as GPU objects); 0 when unknown (records files), then reports give
  // elements only.
  std::uint64_t element_bytes = 0;

  std::size_t size() const { return records.size(); }
  // "record i 'name' (2x8, steps 0..1)" for messages.
  std::string Describe(std::size_t i) const;
};

// Checks a texture problem: equal rank >= 1 for every record, first <= last, steps >= 0,
// element counts that fit in 62 bits, names per record. InputError naming the record.
void Validate(const TextureProblem& problem);

// The product of the dimensions.
std::uint64_t Elements(const std::vector<std::uint64_t>& dims);

// An object for every record.
struct TexturePlan {
  std::string strategy;                                 // e.g. "greedy_in_order"
  std::vector<std::size_t> object_ids;                  // object_ids[i] is the object of record i
  std::vector<std::vector<std::uint64_t>> object_dims;  // dims of each object, creation order
  std::uint64_t total_elements = 0;                     // Σ Elements(object_dims[k])
};

// Every way the plan fails the problem (up to `limit`): missing or unknown ids, an object
// of the wrong rank, an object that does not cover (texture) or equal (shape) one of its
// records, two conflicting records in one object (named both), a wrong total.
std::vector<Violation> FindTextureViolations(const TextureProblem& problem, const TexturePlan& plan,
                                             std::size_t limit = 100);

// The texture strategies by name: "naive", "equality" (hash variant for shapes, linear
// variant for textures, as TensorFlow Lite pairs them), "greedy_in_order" (textures
// only). Validates, plans and verifies. UsageError for an unknown name or an unsupported
// kind, InputError for a bad problem, InternalError for an invalid plan.
TexturePlan PlanTextureObjects(const TextureProblem& problem, std::string_view name);

// The names PlanTextureObjects accepts for a kind, in report order.
std::vector<std::string_view> TextureStrategies(TextureKind kind);

}  // namespace memplan

// Texture and shape-sized objects: validation, verification and the strategy list.
#include "memplan/textures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "memplan/error.h"
#include "src/objects/object_checks.h"
#include "src/objects/texture_strategies.h"

namespace memplan {

namespace {

std::string Dims(const std::vector<std::uint64_t>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 62;

bool Covers(const std::vector<std::uint64_t>& object, const std::vector<std::uint64_t>& record) {
  for (std::size_t d = 0; d < object.size(); ++d)
    if (object[d] < record[d]) return false;
  return true;
}

}  // namespace

std::string TextureProblem::Describe(std::size_t i) const {
  const TextureRecord& r = records[i];
  const std::string name = i < names.size() && !names[i].empty() ? names[i] : fmt::format("#{}", i);
  return fmt::format("record {} '{}' ({}, steps {}..{})", i, name, Dims(r.dims), r.first, r.last);
}

std::uint64_t Elements(const std::vector<std::uint64_t>& dims) {
  std::uint64_t product = 1;
  for (std::uint64_t d : dims) product *= d;
  return product;
}

void Validate(const TextureProblem& problem) {
  if (!problem.names.empty() && problem.names.size() != problem.records.size())
    throw InputError(
        fmt::format("{} names given for {} records", problem.names.size(), problem.records.size()));
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const TextureRecord& r = problem.records[i];
    if (r.dims.empty())
      throw InputError(fmt::format("{}: a size needs at least one dimension", problem.Describe(i)));
    if (r.dims.size() != problem.records[0].dims.size())
      throw InputError(fmt::format("{}: has {} dimensions but {} has {}", problem.Describe(i),
                                   r.dims.size(), problem.Describe(0),
                                   problem.records[0].dims.size()));
    if (r.first < 0)
      throw InputError(fmt::format("{}: first step {} is negative", problem.Describe(i), r.first));
    if (r.first > r.last)
      throw InputError(fmt::format("{}: first step {} is after last step {}", problem.Describe(i),
                                   r.first, r.last));
    if (r.last >= (Step{1} << 62))
      throw InputError(fmt::format("{}: last step {} is too large", problem.Describe(i), r.last));
    std::uint64_t product = 1;
    for (std::uint64_t d : r.dims) {
      if (d != 0 && product > kMaxElements / d)
        throw InputError(fmt::format("{}: too many elements", problem.Describe(i)));
      product *= d;
    }
    if (total > kMaxElements - product)
      throw InputError(
          fmt::format("{}: the records' elements add up to more than 2^62", problem.Describe(i)));
    total += product;
  }
}

namespace {

// Why record i does not fit object `id` of extents `object`; empty when it fits.
std::string TextureMisfit(const TextureProblem& problem, const std::vector<std::uint64_t>& object,
                          std::size_t i, std::size_t id) {
  const auto& dims = problem.records[i].dims;
  if (object.size() != dims.size())
    return fmt::format("wrong rank: object {} is {} but {} has {} dimensions", id, Dims(object),
                       problem.Describe(i), dims.size());
  if (problem.kind == TextureKind::kShape && object != dims)
    return fmt::format("wrong shape: {} is in object {} of shape {}", problem.Describe(i), id,
                       Dims(object));
  if (!Covers(object, dims))
    return fmt::format("too small: {} does not fit object {} ({})", problem.Describe(i), id,
                       Dims(object));
  return {};
}

}  // namespace

std::vector<Violation> FindTextureViolations(const TextureProblem& problem, const TexturePlan& plan,
                                             std::size_t limit) {
  std::vector<Violation> out;
  auto full = [&] { return out.size() >= limit; };
  objects::CheckEachRecord(problem, plan.object_ids, plan.object_dims.size(), limit, out,
                           [&](std::size_t i, std::size_t id) {
                             return TextureMisfit(problem, plan.object_dims[id], i, id);
                           });
  if (!out.empty()) return out;
  objects::FindSharedObjectConflicts(problem, plan.object_ids, limit, out);
  std::uint64_t total = 0;
  for (const auto& dims : plan.object_dims) {
    const std::uint64_t e = Elements(dims);
    if (e > kMaxElements || total > kMaxElements - e) {
      out.push_back({"the object sizes overflow"});
      return out;
    }
    total += e;
  }
  if (!full() && total != plan.total_elements)
    out.push_back(
        {fmt::format("the plan claims {} elements in objects but its objects add up "
                     "to {}",
                     plan.total_elements, total)});
  return out;
}

std::vector<std::string_view> TextureStrategies(TextureKind kind) {
  if (kind == TextureKind::kShape) return {"naive", "equality"};
  return {"naive", "equality", "greedy_in_order"};
}

TexturePlan PlanTextureObjects(const TextureProblem& problem, std::string_view name) {
  const auto known = TextureStrategies(problem.kind);
  if (std::find(known.begin(), known.end(), name) == known.end())
    throw UsageError(fmt::format("objects strategy '{}' is not supported for {} sizes; known: {}",
                                 name, problem.kind == TextureKind::kShape ? "shape" : "texture",
                                 fmt::join(known, " ")));
  Validate(problem);
  TexturePlan plan;
  if (name == "naive")
    plan = PlanTexturesNaive(problem);
  else if (name == "equality")
    plan = problem.kind == TextureKind::kShape ? PlanTexturesEqualityHash(problem)
                                               : PlanTexturesEqualityLinear(problem);
  else
    plan = PlanTexturesGreedyInOrder(problem);
  plan.strategy = std::string(name);
  plan.total_elements = 0;
  for (const auto& dims : plan.object_dims) plan.total_elements += Elements(dims);
  ThrowIfInvalid(fmt::format("texture strategy '{}'", name),
                 FindTextureViolations(problem, plan, 5));
  return plan;
}

}  // namespace memplan

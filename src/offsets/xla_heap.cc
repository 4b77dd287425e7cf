// xla_spatial and xla_temporal: the two global orders of XLA's
// GlobalDecreasingSizeBestFitHeap (docs/offsets.md, xla_*) on records, each with TensorFlow Lite
// GPU's best fit. Spatial: larger size, then longer lifetime; temporal: longer lifetime,
// then larger size; then record order. Comparison rows for users weighing peers; XLA
// itself runs both and keeps the smaller heap, which `best` does too.
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanXlaSpatial(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, SizeThenLifetimeOrder(problem), Fit::kSmallestGap, "xla_spatial");
}

OffsetPlan PlanXlaTemporal(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, LifetimeOrder(problem), Fit::kSmallestGap, "xla_temporal");
}

}  // namespace memplan

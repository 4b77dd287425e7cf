// Replays every case of ../shared/conformance/tflite_arena_planner.json (TensorFlow Lite's
// own ArenaPlanner tests as data) on CpuArenaPlanner's tflite_cpu mode: each call in order,
// each asserted offset, pointer and flag, and the derived state (lifetimes, shares,
// offsets, buffer sizes) the file records after each call.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "memplan/cpu_arena_planner.h"
#include "memplan/error.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using nlohmann::json;

CpuAllocationType TypeNamed(const std::string& name) {
  static const std::map<std::string, CpuAllocationType> kTypes = {
      {"kTfLiteArenaRw", CpuAllocationType::kArenaRw},
      {"kTfLiteArenaRwPersistent", CpuAllocationType::kArenaRwPersistent},
      {"kTfLiteDynamic", CpuAllocationType::kDynamic},
      {"kTfLiteMmapRo", CpuAllocationType::kMmapRo},
      {"kTfLitePersistentRo", CpuAllocationType::kPersistentRo},
      {"kTfLiteCustom", CpuAllocationType::kCustom},
      {"kTfLiteNonCpu", CpuAllocationType::kNonCpu},
      {"kTfLiteMemNone", CpuAllocationType::kMemNone}};
  const auto it = kTypes.find(name);
  if (it == kTypes.end()) throw InputError("unknown allocation type " + name);
  return it->second;
}

std::vector<std::int32_t> Indices(const json& list) {
  std::vector<std::int32_t> out;
  for (const auto& v : list) out.push_back(v.get<std::int32_t>());
  return out;
}

CpuGraph GraphFromJson(const json& g) {
  CpuGraph graph;
  for (const auto& t : g["tensors"]) {
    const auto index = t["index"].get<std::size_t>();
    if (graph.tensors.size() <= index) graph.tensors.resize(index + 1);
    graph.tensors[index] = {t["bytes"].get<Bytes>(), TypeNamed(t["type"].get<std::string>())};
  }
  graph.inputs = Indices(g["inputs"]);
  graph.outputs = Indices(g["outputs"]);
  graph.variables = Indices(g["variables"]);
  for (const auto& n : g["nodes"])
    graph.nodes.push_back({Indices(n["inputs"]), Indices(n["outputs"]), Indices(n["temporaries"]),
                           n["inplace_operator"].get<std::uint32_t>()});
  return graph;
}

// The test fixture of arena_planner_test.cc, in our terms.
class Replay {
 public:
  explicit Replay(const json& c) : graph_(GraphFromJson(c["graph"])) {}

  // Runs one step; returns how many asserted values it checked.
  int Step(const json& step) {
    const std::string call = step["call"];
    SCOPED_TRACE("step " + std::to_string(step["step"].get<int>()) + " " + call);
    if (call == "create_planner") {
      if (planner_) graph_ = planner_->graph();
      planner_.reset();
      CpuPlannerOptions options;
      options.mode = CpuPlannerMode::kTfliteCpu;
      options.preserve_all_tensors = step["preserve_all_tensors"].get<bool>();
      options.tensor_alignment = step["tensor_alignment"].get<Bytes>();
      options.on_buffer_event = [this](const CpuBufferEvent& e) {
        ++(e.allocated ? allocations_ : deallocations_);
      };
      planner_ = std::make_unique<CpuArenaPlanner>(graph_, options);
      planner_->ResetAllocations();
      planner_->PlanAllocations();
    } else if (call == "ExecuteAllocations") {
      planner_->ExecuteAllocations(step["first_node"].get<std::int32_t>(),
                                   step["last_node"].get<std::int32_t>());
    } else if (call == "ResetAllocations") {
      planner_->ResetAllocations();
    } else if (call == "ResetAllocationsAfter") {
      planner_->ResetAllocationsAfter(step["node"].get<std::int32_t>());
    } else if (call == "PlanAllocations") {
      planner_->PlanAllocations();
    } else if (call == "AcquireNonPersistentMemory") {
      planner_->AcquireNonPersistentMemory();
    } else if (call == "ReleaseNonPersistentMemory") {
      planner_->ReleaseNonPersistentMemory();
    } else if (call == "destroy_planner") {
      planner_.reset();
    } else if (call == "set_tensors") {
      for (const auto& change : step["changes"]) {
        const auto t = change["tensor"].get<std::int32_t>();
        if (change.contains("bytes")) planner_->ResizeTensor(t, change["bytes"].get<Bytes>());
        if (change.contains("allocation_type"))
          planner_->SetAllocationType(t, TypeNamed(change["allocation_type"]));
      }
    } else if (call == "replace_graph") {
      planner_->ReplaceGraph(GraphFromJson(step["graph"]));
    } else {
      ADD_FAILURE() << "unknown call " << call;
    }
    if (planner_) {
      auto& saved = pointers_[step["step"].get<int>()];
      for (std::int32_t t = 0; t < static_cast<std::int32_t>(planner_->graph().tensors.size()); ++t)
        saved.push_back(planner_->TensorData(t));
    }
    int checked = 0;
    if (step.contains("expect"))
      for (const auto& e : step["expect"]) checked += Expect(e);
    if (step.contains("derived") && planner_) CheckDerived(step["derived"]);
    return checked;
  }

 private:
  // GetOffset of the test: the data pointer minus the base of the tensor's own arena.
  std::int64_t Offset(std::int32_t t) const {
    const CpuAllocationType type = planner_->graph().tensors[t].type;
    const std::byte* base = type == CpuAllocationType::kArenaRw ? planner_->ArenaBase()
                            : type == CpuAllocationType::kArenaRwPersistent
                                ? planner_->PersistentArenaBase()
                                : nullptr;
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(planner_->TensorData(t)) -
                                     reinterpret_cast<std::uintptr_t>(base));
  }

  int Expect(const json& e) {
    const std::string kind = e["kind"];
    SCOPED_TRACE(e.value("as_stated", kind));
    if (kind == "profiler_counts") {
      if (e.contains("arena_alloc_events")) EXPECT_EQ(allocations_, e["arena_alloc_events"]);
      if (e.contains("arena_dealloc_events")) EXPECT_EQ(deallocations_, e["arena_dealloc_events"]);
      return 1;
    }
    if (!planner_) {
      ADD_FAILURE() << "no planner";
      return 0;
    }
    if (kind == "offset") {
      EXPECT_EQ(Offset(e["tensor"]), e["value"].get<std::int64_t>());
    } else if (kind == "offset_after") {
      const std::int32_t t = e["tensor"];
      const auto end = Offset(t) + static_cast<std::int64_t>(planner_->graph().tensors[t].bytes);
      EXPECT_EQ((end + 3) / 4 * 4, e["value"].get<std::int64_t>());
    } else if (kind == "offsets_equal" || kind == "offsets_differ") {
      const auto a = Offset(e["tensors"][0]), b = Offset(e["tensors"][1]);
      if (kind == "offsets_equal")
        EXPECT_EQ(a, b);
      else
        EXPECT_NE(a, b);
    } else if (kind == "distinct_offsets") {
      std::set<std::int64_t> offsets;
      for (const auto& t : e["tensors"]) offsets.insert(Offset(t));
      EXPECT_EQ(offsets.size(), e["count"].get<std::size_t>());
    } else if (kind == "unallocated") {
      EXPECT_EQ(planner_->TensorData(e["tensor"]), nullptr);
    } else if (kind == "allocated") {
      EXPECT_NE(planner_->TensorData(e["tensor"]), nullptr);
    } else if (kind == "data_pointers_differ") {
      EXPECT_NE(planner_->TensorData(e["tensors"][0]), planner_->TensorData(e["tensors"][1]));
    } else if (kind == "data_pointer_unchanged") {
      const std::int32_t t = e["tensor"];
      EXPECT_EQ(planner_->TensorData(t), pointers_.at(e["since_step"].get<int>()).at(t));
    } else if (kind == "has_non_persistent_memory") {
      EXPECT_EQ(planner_->HasNonPersistentMemory(), e["value"].get<bool>());
    } else {
      ADD_FAILURE() << "unknown expectation " << kind;
      return 0;
    }
    return 1;
  }

  // The state the file's author read from TensorFlow Lite after the step.
  void CheckDerived(const json& d) {
    SCOPED_TRACE("derived state");
    if (d.contains("lifetimes")) {
      for (std::size_t t = 0; t < d["lifetimes"].size(); ++t) {
        const auto& want = d["lifetimes"][t];
        const CpuLifetime got = planner_->Lifetime(static_cast<std::int32_t>(t));
        EXPECT_EQ(got.first ? json(*got.first) : json(nullptr), want[0]) << "tensor " << t;
        EXPECT_EQ(got.last ? json(*got.last) : json(nullptr), want[1]) << "tensor " << t;
      }
    }
    if (d.contains("shares_buffer_of"))
      for (const auto& [out, root] : d["shares_buffer_of"].items())
        EXPECT_EQ(planner_->SharesBufferOf(std::stoi(out)), root.get<std::int32_t>());
    if (d.contains("offsets"))
      for (std::size_t t = 0; t < d["offsets"].size(); ++t) {
        const auto i = static_cast<std::int32_t>(t);
        if (d["offsets"][t].is_null())
          EXPECT_EQ(planner_->TensorData(i), nullptr) << "tensor " << t;
        else
          EXPECT_EQ(Offset(i), d["offsets"][t].get<std::int64_t>()) << "tensor " << t;
      }
    if (d.contains("arena_bytes")) EXPECT_EQ(planner_->ArenaBufferBytes(), d["arena_bytes"]);
    if (d.contains("persistent_arena_bytes"))
      EXPECT_EQ(planner_->PersistentArenaBufferBytes(), d["persistent_arena_bytes"]);
    if (d.contains("has_non_persistent_memory"))
      EXPECT_EQ(planner_->HasNonPersistentMemory(), d["has_non_persistent_memory"].get<bool>());
  }

  CpuGraph graph_;
  std::unique_ptr<CpuArenaPlanner> planner_;
  std::map<int, std::vector<std::byte*>> pointers_;  // data pointers after each step
  int allocations_ = 0;
  int deallocations_ = 0;
};

TEST(CpuArenaPlannerConformance, EveryTfliteArenaPlannerCase) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const json doc = testing::ReadJsonFile(shared / "conformance" / "tflite_arena_planner.json");
  int cases = 0, checked = 0;
  for (const auto& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Replay replay(c);
    for (const auto& step : c["steps"]) {
      // Every call of every case returns kTfLiteOk: nothing may throw.
      try {
        checked += replay.Step(step);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "step " << step["step"] << " threw: " << e.what();
        break;
      }
    }
    ++cases;
  }
  ::testing::Test::RecordProperty("asserted_values", checked);
  EXPECT_EQ(cases, static_cast<int>(doc["cases"].size()));
  EXPECT_EQ(cases, 31);
  EXPECT_EQ(checked, 182) << "the file's notes count 182 asserted values";
}

}  // namespace
}  // namespace memplan

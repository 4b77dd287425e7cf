// A replay of TensorFlow Lite Micro's AllocateTensors (RecordingMicroInterpreter) on an
// arena of a given size, with addresses only (no memory): docs/tflm.md, "The whole arena".
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "memplan/error.h"
#include "memplan/tflm_target.h"
#include "src/target/tflm_kernels.h"
#include "src/target/tflm_structs.h"

namespace memplan {

using target::Layout;

namespace {

constexpr Bytes kArenaAlignment = 16;   // MicroArenaBufferAlignment()
constexpr Bytes kMaxScratchPerOp = 12;  // kMaxScratchBuffersPerOp

Bytes AlignDown(Bytes value, Bytes alignment) {
  return value / alignment * alignment;
}

// PrintAllocations' categories, in its order.
enum Category : std::size_t {
  kEvalTensors,
  kPersistentTensors,
  kPersistentQuantization,
  kPersistentBuffers,
  kVariables,
  kNodes,
  kOpData,
  kCategories,
};
constexpr std::array<std::pair<const char*, const char*>, kCategories> kCategoryNames = {{
    {"TfLiteEvalTensor data", "allocations"},
    {"Persistent TfLiteTensor data", "tensors"},
    {"Persistent TfLiteTensor quantization data", "allocations"},
    {"Persistent buffer data", "allocations"},
    {"TfLiteTensor variable buffer data", "allocations"},
    {"NodeAndRegistration struct", "NodeAndRegistration structs"},
    {"Operator runtime data", "OpData structs"},
}};

// One buffer [0, size) with TFLM's three sections: head and temp grow up from 0, the
// tail grows down from the end. Failures are remembered; later calls do nothing.
class SimArena {
 public:
  // One buffer of `size` bytes; or, with `non_persistent` set, two buffers: the tail in
  // one of `size` bytes, head and temp in one of `*non_persistent` bytes.
  explicit SimArena(Bytes size, std::optional<Bytes> non_persistent = std::nullopt)
      : end_(size), tail_(size), non_persistent_(non_persistent) {}

  bool ok() const { return ok_; }
  Bytes tail_used() const { return end_ - tail_; }
  Bytes head() const { return head_; }

  // AllocatePersistentBuffer: align_down(tail - size); below the head fails. An unchecked
  // allocation that fails only returns null: the replay goes on.
  void Persistent(Bytes size, Bytes alignment, bool checked = true) {
    if (!ok_) return;
    if (checked) checked_bytes_ += size;
    const Bytes floor = non_persistent_ ? 0 : head_;
    if (size > tail_ || AlignDown(tail_ - size, alignment) < floor) {
      if (checked) ok_ = false;
      ++refused_;
      return;
    }
    tail_ = AlignDown(tail_ - size, alignment);
  }
  // Unchecked allocations that failed.
  std::size_t refused() const { return refused_; }
  // Bytes the checked persistent allocations asked for (no buffer smaller holds them).
  Bytes checked_bytes() const { return checked_bytes_; }
  // AllocateTemp: align_up(temp); past the tail fails.
  void Temp(Bytes size, Bytes alignment) {
    if (!ok_) return;
    const Bytes at = AlignUp(temp_, alignment);
    if (at > limit() || limit() - at < size) {
      ok_ = false;
      return;
    }
    temp_ = at + size;
    peak_non_persistent_ = std::max(peak_non_persistent_, temp_);
  }
  void ResetTemp() { temp_ = head_; }
  // ResizeBuffer of the head (temp must be reset).
  void ResizeHead(Bytes size) {
    if (!ok_) return;
    if (size > limit()) {
      ok_ = false;
      return;
    }
    head_ = temp_ = size;
    peak_non_persistent_ = std::max(peak_non_persistent_, head_);
  }
  // GetAvailableMemory(alignment).
  Bytes Available(Bytes alignment) const {
    const Bytes from = AlignUp(temp_, alignment);
    const Bytes to = AlignDown(limit(), alignment);
    return to > from ? to - from : 0;
  }
  void Fail() { ok_ = false; }
  // Non-persistent bytes something needs up to `end` (the planner's working memory).
  void NoteNeed(Bytes end) { peak_non_persistent_ = std::max(peak_non_persistent_, end); }
  Bytes temp() const { return temp_; }
  Bytes peak_non_persistent() const { return peak_non_persistent_; }

 private:
  // Where head and temp must stop: the tail, or the end of their own buffer.
  Bytes limit() const { return non_persistent_ ? *non_persistent_ : tail_; }

  Bytes end_;                            // the buffer's end (its start is 0)
  Bytes tail_;                           // lowest tail address
  Bytes head_ = 0;                       // end of the head
  Bytes temp_ = 0;                       // end of the temp section (head_ when none is held)
  Bytes peak_non_persistent_ = 0;        // high-water mark of head and temp
  std::optional<Bytes> non_persistent_;  // two buffers: the non-persistent one's size
  std::size_t refused_ = 0;              // unchecked allocations that failed
  Bytes checked_bytes_ = 0;              // sizes of the checked persistent allocations
  bool ok_ = true;
};

// What one replay of AllocateTensors ended with.
struct Replay {
  bool ok = false;                                     // every checked allocation succeeded
  std::size_t refused = 0;                             // unchecked allocations that failed
  Bytes checked_bytes = 0;                             // asked for by checked allocations
  Bytes head = 0;                                      // the head after the plan
  Bytes tail = 0;                                      // bytes of the tail
  Bytes peak_non_persistent = 0;                       // largest head + temp (planner included)
  std::array<TflmCategory, kCategories> categories{};  // the recording, by category
};

// Everything the replay needs, computed once per model.
struct ModelMemory {
  std::vector<std::vector<target::KernelMemory>> kernels;  // per subgraph, per op
};

// One replay in progress: the arena and what the recording saw.
struct ReplayState {
  SimArena arena;
  Replay replay;
  // Records an allocation in a category: the tail's move, the bytes asked, the count.
  void Record(Category c, Bytes size, Bytes alignment, std::uint64_t count, bool checked = true) {
    const Bytes before = arena.tail_used();
    arena.Persistent(size, alignment, checked);
    TflmCategory& cat = replay.categories[c];
    cat.used += arena.tail_used() - before;
    cat.requested += size;
    cat.count += count;
  }
  void Object(const Layout& l) { arena.Persistent(l.size, l.align); }
};

class Replayer {
 public:
  Replayer(const Graph& graph, const TargetAbi& abi, const TflmHeadPlan& plan,
           const ModelMemory& memory)
      : graph_(graph), abi_(abi), plan_(plan), memory_(memory) {}

  // One arena of `arena_size` bytes as RecordingMicroInterpreter uses it (or, `plain`, as
  // MicroInterpreter does); or, with `non_persistent`, MicroAllocator::Create with two
  // buffers (no recording objects).
  Replay Run(Bytes arena_size, std::optional<Bytes> non_persistent = std::nullopt,
             bool plain = false) const {
    ReplayState st{SimArena(arena_size, non_persistent), Replay{}};
    AllocatorObjects(st, non_persistent.has_value(), plain);
    StartModelAllocation(st);
    const std::size_t requests = InitAndPrepare(st);
    FinishModelAllocation(st, requests);
    InterpreterTensors(st);
    Replay& r = st.replay;
    r.ok = st.arena.ok();
    r.refused = st.arena.refused();
    r.checked_bytes = st.arena.checked_bytes();
    r.head = st.arena.head();
    r.tail = st.arena.tail_used();
    r.peak_non_persistent = st.arena.peak_non_persistent();
    return r;
  }

 private:
  // The objects the allocator's Create puts at the top of the tail.
  void AllocatorObjects(ReplayState& st, bool two_buffers, bool plain) const {
    if (plain && !two_buffers) {
      // MicroAllocator::Create(arena, size): the arena allocator, the planner, the allocator.
      st.Object(target::SingleArenaBufferAllocatorLayout(abi_));
      st.Object(target::GreedyMemoryPlannerLayout(abi_));
      st.Object(target::MicroAllocatorLayout(abi_));
    } else if (!two_buffers) {
      // RecordingMicroAllocator::Create: the arena allocator, the planner, the allocator.
      st.Object(target::RecordingSingleArenaBufferAllocatorLayout(abi_));
      st.Object(target::GreedyMemoryPlannerLayout(abi_));
      st.Object(target::RecordingMicroAllocatorLayout(abi_));
    } else {
      // MicroAllocator::Create with two buffers: both arena allocators, the planner, the
      // allocator, all in the persistent buffer.
      st.Object(target::PersistentArenaBufferAllocatorLayout(abi_));
      st.Object(target::NonPersistentArenaBufferAllocatorLayout(abi_));
      st.Object(target::GreedyMemoryPlannerLayout(abi_));
      st.Object(target::MicroAllocatorLayout(abi_));
    }
  }

  // StartModelAllocation: the per-subgraph arrays and every op's options struct.
  void StartModelAllocation(ReplayState& st) const {
    st.Object(target::MicroBuiltinDataAllocatorLayout(abi_));
    st.arena.ResizeHead(target::ScratchBufferRequestLayout(abi_).size * kMaxScratchPerOp);
    const Layout subgraphs = target::SubgraphAllocationsLayout(abi_);
    st.arena.Persistent(subgraphs.size * graph_.subgraphs.size(), subgraphs.align);
    const Layout eval = target::TfLiteEvalTensorLayout(abi_);
    for (const Subgraph& sg : graph_.subgraphs)
      st.Record(kEvalTensors, eval.size * sg.tensors.size(), eval.align, sg.tensors.size());
    const Layout node = target::NodeAndRegistrationLayout(abi_);
    for (const Subgraph& sg : graph_.subgraphs)
      st.Record(kNodes, node.size * sg.ops.size(), node.align, sg.ops.size());
    for (const auto& sg : memory_.kernels)
      for (const target::KernelMemory& k : sg)
        if (k.has_builtin_data) st.arena.Persistent(k.builtin_data.size, k.builtin_data.align);
  }

  // Every op's Init, then every op's Prepare: temp views, persistent data, scratch requests;
  // temp reset after each op. Returns the scratch requests.
  std::size_t InitAndPrepare(ReplayState& st) const {
    for (const auto& sg : memory_.kernels)
      for (const target::KernelMemory& k : sg)
        for (Bytes b : k.init) st.Record(kPersistentBuffers, b, kArenaAlignment, 1);
    const Layout tensor = target::TfLiteTensorLayout(abi_);
    const Layout quant = target::TfLiteAffineQuantizationLayout(abi_);
    const Layout request = target::ScratchBufferRequestLayout(abi_);
    std::size_t requests = 0;
    std::size_t op_index = 0;
    for (std::size_t s = 0; s < memory_.kernels.size(); ++s) {
      for (const target::KernelMemory& k : memory_.kernels[s]) {
        auto view = [&](std::int32_t t) {  // a temp TfLiteTensor and its quantization
          st.arena.Temp(tensor.size, tensor.align);
          const std::uint32_t channels =
              graph_.subgraphs[s].tensors[static_cast<std::size_t>(t)].quant_channels;
          if (channels > 0) {
            st.arena.Temp(quant.size, quant.align);
            st.arena.Temp(target::IntArrayBytes(channels), target::kIntArrayAlign);
          }
        };
        const std::size_t before =
            std::min(k.temps.size(), k.temps_before_prepare.value_or(k.temps.size()));
        for (std::size_t i = 0; i < before; ++i) view(k.temps[i]);
        for (Bytes b : k.prepare)
          st.Record(kPersistentBuffers, b, kArenaAlignment, 1, !k.prepare_unchecked);
        for (std::size_t i = before; i < k.temps.size(); ++i) view(k.temps[i]);
        requests += op_index < plan_.scratch.size() ? plan_.scratch[op_index] : 0;
        ++op_index;
        st.arena.ResetTemp();
        st.arena.ResizeHead(request.size * (requests + kMaxScratchPerOp));
      }
    }
    return requests;
  }

  // FinishModelAllocation: scratch handles, the plan's working memory, variables, the plan.
  void FinishModelAllocation(ReplayState& st, std::size_t requests) const {
    SimArena& a = st.arena;
    if (requests > 0) {
      const Layout handle = target::ScratchBufferHandleLayout(abi_);
      a.Persistent(handle.size * requests, handle.align);
    }
    a.Temp(abi_.pointer * graph_.subgraphs.size(), abi_.pointer);  // subgraph offsets
    const Layout info = target::AllocationInfoLayout(abi_);
    a.Temp(info.size * (graph_.TensorCount() + requests), info.align);
    for (const Subgraph& sg : graph_.subgraphs) {
      for (std::size_t i = 0; i < sg.tensors.size(); ++i) {
        const Tensor& t = sg.tensors[i];
        if (!t.is_variable) continue;
        // TFLM indexes the offline offsets by the tensor's index in its own subgraph.
        const bool offline = i < graph_.fixed_offsets.size() && graph_.fixed_offsets[i] >= 0;
        if (!offline) st.Record(kVariables, t.bytes.value_or(0), kArenaAlignment, 1);
      }
    }
    // The planner gets all memory left and needs so much per buffer.
    const Bytes planner_memory = a.Available(kArenaAlignment);
    const Bytes planner_needs = target::GreedyPlannerBytesPerBuffer(abi_) * plan_.planned_buffers;
    // (GetAvailableMemory aligns the limit down, so the need ends aligned too.)
    a.NoteNeed(AlignUp(AlignUp(a.temp(), kArenaAlignment) + planner_needs, kArenaAlignment));
    if (planner_memory < planner_needs) a.Fail();
    // (It takes all that memory, but only until the plan is made: nothing is placed after
    // it before the temp section is reset.)
    a.ResetTemp();
    a.ResizeHead(0);
    a.ResizeHead(plan_.head);
  }

  // The interpreter's input and output tensors.
  void InterpreterTensors(ReplayState& st) const {
    const Layout tensor = target::TfLiteTensorLayout(abi_);
    const Layout quant = target::TfLiteAffineQuantizationLayout(abi_);
    const Subgraph& main = graph_.subgraphs.front();
    for (const auto* list : {&main.inputs, &main.outputs}) {
      st.Record(kPersistentBuffers, abi_.pointer * list->size(), kArenaAlignment, 1);
      for (std::int32_t t : *list) {
        st.Record(kPersistentTensors, tensor.size, tensor.align, 1);
        const std::uint32_t channels = main.tensors[static_cast<std::size_t>(t)].quant_channels;
        if (channels > 0) {
          st.Record(kPersistentQuantization, quant.size, quant.align, 1);
          st.Record(kPersistentQuantization, target::IntArrayBytes(channels),
                    target::kIntArrayAlign, 1);
        }
      }
    }
  }

  const Graph& graph_;         // the model
  const TargetAbi& abi_;       // the target's layouts
  const TflmHeadPlan& plan_;   // the head and the scratch requests
  const ModelMemory& memory_;  // every kernel's memory
};

// The smallest size in (lo, hi] for which `works` holds, given that it holds for hi (a
// bisection, as the real figures were found).
template <typename Works>
Bytes SmallestThatWorks(Bytes lo, Bytes hi, const Works& works) {
  while (lo + 1 < hi) {
    const Bytes mid = lo + (hi - lo) / 2;
    (works(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The persistent buffer sizes below `safe` that TFLM accepts (runs of multiples of 16,
// first and last; a size works as its multiple of 16 below, the buffer's end being aligned
// down). Success is not monotone in the size: an unchecked array granted in a larger buffer
// can leave a later checked allocation no room. So every multiple of 16 is tried, from the
// checked allocations' sum (no smaller buffer holds them).
std::vector<TflmSizeRange> AcceptedPersistentSizes(const Replayer& replayer, Bytes from, Bytes safe,
                                                   Bytes non_persistent) {
  std::vector<TflmSizeRange> runs;
  for (Bytes size = from; size < safe; size += kArenaAlignment) {
    if (!replayer.Run(size, non_persistent).ok) continue;
    if (!runs.empty() && runs.back().last + kArenaAlignment == size)
      runs.back().last = size;
    else
      runs.push_back({size, size});
  }
  return runs;
}

}  // namespace

TflmArenaFigures ModelTflmArena(const Graph& graph, const TargetAbi& target,
                                const TflmHeadPlan& head) {
  if (graph.subgraphs.empty())
    throw InputError(fmt::format("{}: the model has no subgraph", graph.source));
  TflmArenaFigures out;
  out.target = target;
  TflmOpCheck check = CheckTflmOps(graph, target);
  out.unsupported = std::move(check.unsupported);
  out.unmodelled = std::move(check.unmodelled);
  ModelMemory memory;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    memory.kernels.emplace_back();
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      target::KernelMemory k = target::DescribeKernel(target, sg, sg.ops[i]);
      memory.kernels.back().push_back(std::move(k));
    }
    for (std::size_t t = 0; t < sg.tensors.size(); ++t)
      if (sg.tensors[t].is_variable && !sg.tensors[t].bytes)
        throw InputError(fmt::format("{}: variable tensor {} ('{}') has no static size: {}",
                                     graph.source, t, sg.tensors[t].name,
                                     sg.tensors[t].why_unsized));
  }
  const Replayer replayer(graph, target, head, memory);
  // The figures with plenty of room: an arena as large as anything could need.
  const Bytes roomy = Bytes{1} << 46;
  const Replay full = replayer.Run(roomy);
  if (!full.ok) throw InputError(fmt::format("{}: the model does not fit any arena", graph.source));
  out.head = full.head;
  out.tail = full.tail;
  out.arena_used = full.head + full.tail;
  for (std::size_t c = 0; c < kCategories; ++c) {
    TflmCategory cat = full.categories[c];
    if (cat.used == 0 && cat.requested == 0) continue;
    cat.name = kCategoryNames[c].first;
    cat.unit = kCategoryNames[c].second;
    out.categories.push_back(cat);
  }
  // The smallest size that works (success grows with the size, as TFLM's does).
  const auto recording_works = [&](Bytes size) { return replayer.Run(size).ok; };
  Bytes hi = full.peak_non_persistent + full.tail + 64;
  while (!recording_works(hi)) hi *= 2;
  out.minimal_arena = SmallestThatWorks(0, hi, recording_works);
  // The same with a plain MicroInterpreter (the allocator objects are smaller).
  const auto plain_works = [&](Bytes size) { return replayer.Run(size, std::nullopt, true).ok; };
  if (!plain_works(out.minimal_arena))
    throw InternalError("a plain interpreter needs more than a recording one");
  out.minimal_arena_plain = SmallestThatWorks(0, out.minimal_arena, plain_works);
  // Two buffers: the non-persistent one holds head and temp at their peak; the persistent
  // one the tail with every allocation granted (the safe size), and less where allocations
  // a kernel does not check are refused and the model still prepares.
  const Replay two = replayer.Run(roomy, roomy);
  out.two_buffer_persistent_safe = AlignUp(two.tail, kArenaAlignment);
  out.two_buffer_non_persistent = two.peak_non_persistent;
  if (!replayer.Run(out.two_buffer_persistent_safe, out.two_buffer_non_persistent).ok)
    throw InternalError("the two-buffer sizes found do not replay");
  out.two_buffer_persistent_accepted =
      AcceptedPersistentSizes(replayer, AlignUp(two.checked_bytes, kArenaAlignment),
                              out.two_buffer_persistent_safe, out.two_buffer_non_persistent);
  out.two_buffer_persistent = out.two_buffer_persistent_accepted.empty()
                                  ? out.two_buffer_persistent_safe
                                  : out.two_buffer_persistent_accepted.front().first;
  return out;
}

bool TflmAcceptsPersistentBuffer(const TflmArenaFigures& f, Bytes size) {
  const Bytes used = AlignDown(size, kArenaAlignment);
  if (used >= f.two_buffer_persistent_safe) return true;
  return std::any_of(f.two_buffer_persistent_accepted.begin(),
                     f.two_buffer_persistent_accepted.end(),
                     [&](const TflmSizeRange& r) { return r.first <= used && used <= r.last; });
}

std::string TflmPrintAllocations(const TflmArenaFigures& f) {
  std::string s;
  s += fmt::format("[RecordingMicroAllocator] Arena allocation total {} bytes\n", f.arena_used);
  s += fmt::format("[RecordingMicroAllocator] Arena allocation head {} bytes\n", f.head);
  s += fmt::format("[RecordingMicroAllocator] Arena allocation tail {} bytes\n", f.tail);
  for (const TflmCategory& c : f.categories)
    s += fmt::format(
        "[RecordingMicroAllocator] '{}' used {} bytes with alignment overhead (requested {} "
        "bytes for {} {})\n",
        c.name, c.used, c.requested, c.count, c.unit);
  return s;
}

}  // namespace memplan

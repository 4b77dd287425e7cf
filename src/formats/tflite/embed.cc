// Writes an offline plan (and a new operator order) into an existing .tflite file.
//
// Why the file is spliced rather than re-serialised: memplan's schema declares only what
// planning needs, so a model rebuilt from it would lose quantization, builtin options,
// signature defs and whatever newer converters add. Instead the old bytes are kept whole
// and a small region is inserted right after the 8-byte header (root offset, file
// identifier):
//
//   [new root offset][identifier][region: K bytes][old bytes 8.. as they were]
//
// Flatbuffers offsets are relative, so every offset inside the old bytes still points
// where it did; K is a multiple of 64, so every alignment up to 64 (TFLite's buffers use
// 16) still holds. The region holds a new Model table that copies the old one field by
// field (scalars by value, offsets re-aimed at the same old objects, K bytes further on)
// except three: `buffers` and `metadata` become new vectors referencing the old tables
// plus one new Buffer and Metadata entry, and, when reordering, `subgraphs` a vector of
// new SubGraph tables whose `operators` list the old Operator tables in the new order.
// Unsigned flatbuffers offsets only point forward, which the region, placed before the
// old bytes and laid out parents first, always does. The old Model table stays behind as
// unreferenced bytes. Fields are copied by their meaning in the official schema; a
// field id the official schema does not have is refused rather than guessed.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include "memplan/error.h"
#include "memplan/tflite.h"
#include "src/formats/tflite/verify.h"

namespace memplan {

namespace {

namespace fb = formats::fb;

constexpr std::size_t kHeader = 8;              // root offset + file identifier
constexpr std::size_t kShiftAlignment = 64;     // K, the region size, is a multiple of it
constexpr std::size_t kBufferAlignment = 16;    // Buffer.data is force_align: 16
constexpr std::uint64_t kMaxFile = 0x7fffffff;  // flatbuffers' limit (2 GiB - 1)

// Model fields of the official schema (ids 0..7): which hold offsets.
constexpr std::size_t kModelFields = 8;
constexpr bool kModelFieldIsOffset[kModelFields] = {false, true, true, true,
                                                    true,  true, true, true};
constexpr std::size_t kModelSubgraphs = 2, kModelBuffers = 4, kModelMetadata = 6;
// SubGraph: tensors, inputs, outputs, operators, name, debug_metadata_index (int).
constexpr std::size_t kSubgraphFields = 6;
constexpr bool kSubgraphFieldIsOffset[kSubgraphFields] = {true, true, true, true, true, false};
constexpr std::size_t kSubgraphOperators = 3;

constexpr flatbuffers::voffset_t FieldSlot(std::size_t id) {
  return static_cast<flatbuffers::voffset_t>(4 + 2 * id);
}

// A table as raw bytes: where each field lies, read with bounds checked (fields the
// verifier did not look at may point anywhere).
class RawTable {
 public:
  RawTable(std::string_view file, std::size_t table, std::string_view source, std::string label)
      : file_(file), table_(table), source_(source), label_(std::move(label)) {
    const auto soffset = Read<std::int32_t>(table_);
    const std::int64_t vtable = static_cast<std::int64_t>(table_) - soffset;
    if (vtable < 0 || static_cast<std::uint64_t>(vtable) + 4 > file_.size()) Refuse("its vtable");
    vtable_ = static_cast<std::size_t>(vtable);
    vtable_bytes_ = Read<std::uint16_t>(vtable_);
    if (vtable_bytes_ < 4 || vtable_ + vtable_bytes_ > file_.size()) Refuse("its vtable size");
  }

  std::size_t FieldCount() const { return (vtable_bytes_ - 4u) / 2u; }

  // The field's position in the file, or 0 when it is absent.
  std::size_t FieldAt(std::size_t id) const {
    if (id >= FieldCount()) return 0;
    const auto offset = Read<std::uint16_t>(vtable_ + FieldSlot(id));
    if (offset == 0) return 0;
    if (table_ + offset + 4 > file_.size()) Refuse(fmt::format("field {}", id));
    return table_ + offset;
  }

  std::uint32_t Scalar32(std::size_t id) const { return Read<std::uint32_t>(FieldAt(id)); }

  // Where an offset field points (an absolute position in the file).
  std::size_t Target(std::size_t id) const {
    const std::size_t at = FieldAt(id);
    const std::uint64_t target = std::uint64_t{at} + Read<std::uint32_t>(at);
    if (target < kHeader || target >= file_.size())
      Refuse(fmt::format("field {} (it points outside the file)", id));
    return static_cast<std::size_t>(target);
  }

  // The ids present beyond the first `known`.
  std::vector<std::size_t> FieldsBeyond(std::size_t known) const {
    std::vector<std::size_t> out;
    for (std::size_t id = known; id < FieldCount(); ++id)
      if (Read<std::uint16_t>(vtable_ + FieldSlot(id)) != 0) out.push_back(id);
    return out;
  }

 private:
  template <typename T>
  T Read(std::size_t at) const {
    T value;
    std::memcpy(&value, file_.data() + at, sizeof(T));
    return flatbuffers::EndianScalar(value);
  }

  [[noreturn]] void Refuse(const std::string& what) const {
    throw InputError(
        fmt::format("{}: cannot embed: {} of the {} table is malformed", source_, what, label_));
  }

  std::string_view file_;
  std::size_t table_ = 0;
  std::size_t vtable_ = 0;
  std::uint16_t vtable_bytes_ = 0;
  std::string source_;
  std::string label_;
};

// The inserted region, written front to back. References go to labels (objects later
// in the region) or to old positions (which move K bytes on); both are resolved when
// the region is finished and K is known.
class Region {
 public:
  using Label = std::size_t;

  // One field of a table being written.
  struct Field {
    enum class Kind { kAbsent, kScalar, kLabel, kOld } kind = Kind::kAbsent;
    std::uint64_t value = 0;  // the scalar, the label or the old position
  };
  static Field Absent() { return {}; }
  static Field Scalar(std::uint32_t v) { return {Field::Kind::kScalar, v}; }
  static Field ToLabel(Label l) { return {Field::Kind::kLabel, l}; }
  static Field ToOld(std::size_t position) { return {Field::Kind::kOld, position}; }

  Label NewLabel() {
    labels_.push_back(kUnbound);
    return labels_.size() - 1;
  }
  void Bind(Label l) { labels_[l] = Pos(); }

  // A table of 4-byte fields: its vtable first, so the table's soffset is positive.
  void Table(Label self, const std::vector<Field>& fields) {
    Align(2);
    const std::size_t vtable = Pos();
    U16(static_cast<std::uint16_t>(4 + 2 * fields.size()));
    std::size_t present = 0;
    for (const Field& f : fields) present += f.kind != Field::Kind::kAbsent;
    U16(static_cast<std::uint16_t>(4 + 4 * present));
    std::size_t slot = 0;
    for (const Field& f : fields)
      U16(f.kind == Field::Kind::kAbsent ? 0 : static_cast<std::uint16_t>(4 + 4 * slot++));
    Align(4);
    Bind(self);
    U32(static_cast<std::uint32_t>(Pos() - vtable));
    for (const Field& f : fields) Put(f);
  }

  // A vector of offsets.
  void Vector(Label self, const std::vector<Field>& elements) {
    Align(4);
    Bind(self);
    U32(static_cast<std::uint32_t>(elements.size()));
    for (const Field& e : elements) Put(e);
  }

  void String(Label self, std::string_view s) {
    Align(4);
    Bind(self);
    U32(static_cast<std::uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back(0);
  }

  // A byte vector whose data starts at a multiple of `alignment` in the file.
  void ByteVector(Label self, const std::vector<std::uint8_t>& data, std::size_t alignment) {
    Align(alignment, 4);
    Bind(self);
    U32(static_cast<std::uint32_t>(data.size()));
    bytes_.insert(bytes_.end(), data.begin(), data.end());
  }

  // The new file: header, region (padded to K), old bytes from 8 on.
  std::string Finish(std::string_view old, Label root) {
    while (bytes_.size() % kShiftAlignment != 0) bytes_.push_back(0);
    const std::size_t shift = bytes_.size();
    if (old.size() + shift > kMaxFile)
      throw InputError("the model with its offline plan would exceed flatbuffers' 2 GiB");
    for (const Fix& fix : fixes_) {
      const std::uint64_t target =
          fix.to_label ? labels_.at(fix.target) : std::uint64_t{fix.target} + shift;
      if (target == kUnbound || target <= fix.at)
        throw InternalError("embed: a reference of the inserted region does not point forward");
      Patch(fix.at, static_cast<std::uint32_t>(target - fix.at));
    }
    std::string out;
    out.reserve(old.size() + shift);
    const auto root_at = static_cast<std::uint32_t>(
        flatbuffers::EndianScalar(static_cast<std::uint32_t>(labels_.at(root))));
    out.append(reinterpret_cast<const char*>(&root_at), 4);
    out.append(old.substr(4, 4));
    out.append(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
    out.append(old.substr(kHeader));
    return out;
  }

 private:
  static constexpr std::uint64_t kUnbound = std::numeric_limits<std::uint64_t>::max();
  struct Fix {
    std::size_t at;  // position of the offset in the new file
    bool to_label;   // else an old position
    std::uint64_t target;
  };

  std::size_t Pos() const { return kHeader + bytes_.size(); }
  void Align(std::size_t n, std::size_t extra = 0) {
    while ((Pos() + extra) % n != 0) bytes_.push_back(0);
  }
  void U16(std::uint16_t v) {
    v = flatbuffers::EndianScalar(v);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    bytes_.insert(bytes_.end(), p, p + 2);
  }
  void U32(std::uint32_t v) {
    v = flatbuffers::EndianScalar(v);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    bytes_.insert(bytes_.end(), p, p + 4);
  }
  void Patch(std::size_t at, std::uint32_t v) {
    v = flatbuffers::EndianScalar(v);
    std::memcpy(bytes_.data() + (at - kHeader), &v, 4);
  }
  void Put(const Field& f) {
    switch (f.kind) {
      case Field::Kind::kAbsent:
        return;
      case Field::Kind::kScalar:
        U32(static_cast<std::uint32_t>(f.value));
        return;
      case Field::Kind::kLabel:
      case Field::Kind::kOld:
        fixes_.push_back({Pos(), f.kind == Field::Kind::kLabel, f.value});
        U32(0);
        return;
    }
  }

  std::vector<std::uint8_t> bytes_;
  std::vector<std::uint64_t> labels_;
  std::vector<Fix> fixes_;
};

template <typename T>
std::size_t PositionOf(std::string_view file, const T* object) {
  return static_cast<std::size_t>(reinterpret_cast<const char*>(object) - file.data());
}

// A field copied from an old table into a new one.
Region::Field CopyField(const RawTable& table, std::size_t id, bool is_offset) {
  if (table.FieldAt(id) == 0) return Region::Absent();
  return is_offset ? Region::ToOld(table.Target(id)) : Region::Scalar(table.Scalar32(id));
}

class Embedder {
 public:
  Embedder(std::string_view bytes, std::string_view source, const TfliteEmbedding& e)
      : file_(bytes), source_(source), e_(e), model_(formats::VerifiedModel(bytes, source)) {}

  std::string Write() && {
    RefuseWhatCannotMove();
    const RawTable model(file_, PositionOf(file_, model_), source_, "Model");
    if (const auto extra = model.FieldsBeyond(kModelFields); !extra.empty())
      Refuse(
          fmt::format("its Model table has field id {}, newer than the official schema "
                      "memplan knows (ids 0..7); it cannot copy it faithfully",
                      extra.front()));
    const Region::Label root = region_.NewLabel();
    const Region::Label subgraphs = region_.NewLabel();
    const Region::Label buffers = region_.NewLabel();
    const Region::Label metadata = region_.NewLabel();
    const bool reorder = Reorders();

    std::vector<Region::Field> fields;
    for (std::size_t id = 0; id < kModelFields; ++id)
      fields.push_back(CopyField(model, id, kModelFieldIsOffset[id]));
    if (reorder) fields[kModelSubgraphs] = Region::ToLabel(subgraphs);
    fields[kModelBuffers] = Region::ToLabel(buffers);
    fields[kModelMetadata] = Region::ToLabel(metadata);
    region_.Table(root, fields);
    if (reorder) WriteSubgraphs(subgraphs);

    // Buffers: the old ones, with the plan's words in a buffer nothing else uses.
    const Region::Label plan_buffer = region_.NewLabel();
    std::vector<Region::Field> buffer_list;
    const auto* old_buffers = model_->buffers();
    const std::size_t old_count = old_buffers ? old_buffers->size() : 0;
    const Region::Label sentinel = region_.NewLabel();
    if (old_count == 0) buffer_list.push_back(Region::ToLabel(sentinel));  // buffers[0] is empty
    for (flatbuffers::uoffset_t b = 0; b < old_count; ++b)
      buffer_list.push_back(Region::ToOld(PositionOf(file_, old_buffers->Get(b))));
    const std::optional<std::size_t> reused = ReusableBuffer();
    std::size_t plan_index = buffer_list.size();
    if (reused) {
      plan_index = *reused;
      buffer_list[plan_index] = Region::ToLabel(plan_buffer);
    } else {
      buffer_list.push_back(Region::ToLabel(plan_buffer));
    }
    region_.Vector(buffers, buffer_list);
    if (old_count == 0) region_.Table(sentinel, {});

    // Metadata: the old entries except offline plans; the new one where the first was.
    const Region::Label entry = region_.NewLabel();
    std::vector<Region::Field> entries;
    bool placed = false;
    if (const auto* old = model_->metadata()) {
      for (flatbuffers::uoffset_t i = 0; i < old->size(); ++i) {
        const fb::Metadata* m = old->Get(i);
        if (m->name() && m->name()->string_view() == kOfflinePlanMetadata) {
          if (!placed) entries.push_back(Region::ToLabel(entry));
          placed = true;
        } else {
          entries.push_back(Region::ToOld(PositionOf(file_, m)));
        }
      }
    }
    if (!placed) entries.push_back(Region::ToLabel(entry));
    region_.Vector(metadata, entries);
    const Region::Label name = region_.NewLabel();
    region_.Table(entry,
                  {Region::ToLabel(name), Region::Scalar(static_cast<std::uint32_t>(plan_index))});
    region_.String(name, kOfflinePlanMetadata);
    const Region::Label words = region_.NewLabel();
    region_.Table(plan_buffer, {Region::ToLabel(words)});
    region_.ByteVector(
        words,
        EncodeOfflinePlan(e_.offline_version, model_->subgraphs()->size(), e_.offline_offsets),
        kBufferAlignment);
    try {
      return std::move(region_).Finish(file_, root);
    } catch (const InputError& error) {
      Refuse(error.what());
    }
  }

 private:
  [[noreturn]] void Refuse(const std::string& why) const {
    throw InputError(fmt::format("{}: cannot embed: {}", source_, why));
  }

  // Data addressed from the file start would move by K bytes.
  void RefuseWhatCannotMove() const {
    if (const auto* buffers = model_->buffers())
      for (flatbuffers::uoffset_t b = 0; b < buffers->size(); ++b)
        if (buffers->Get(b)->offset() > 1)
          Refuse(
              fmt::format("buffer {} keeps its data outside the flatbuffer (offset/size "
                          "fields, as models over 2 GiB do); memplan does not rewrite those",
                          b));
    const auto* subgraphs = model_->subgraphs();
    for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s)
      if (const auto* ops = subgraphs->Get(s)->operators())
        for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i)
          if (ops->Get(i)->large_custom_options_offset() > 1)
            Refuse(
                fmt::format("subgraph {}, op {} keeps its custom options outside the "
                            "flatbuffer (models over 2 GiB); memplan does not rewrite those",
                            s, i));
  }

  bool Reorders() const {
    const auto* subgraphs = model_->subgraphs();
    if (e_.op_order.size() > subgraphs->size())
      Refuse(fmt::format("an operator order for {} subgraphs, but the model has {}",
                         e_.op_order.size(), subgraphs->size()));
    bool any = false;
    for (std::size_t s = 0; s < e_.op_order.size(); ++s) {
      const auto& order = e_.op_order[s];
      if (order.empty()) continue;
      const auto* ops = subgraphs->Get(static_cast<flatbuffers::uoffset_t>(s))->operators();
      const std::size_t n = ops ? ops->size() : 0;
      std::vector<bool> seen(n, false);
      for (const std::int32_t i : order) {
        if (i < 0 || static_cast<std::size_t>(i) >= n || seen[static_cast<std::size_t>(i)])
          Refuse(fmt::format("the operator order of subgraph {} is not a permutation of its {} ops",
                             s, n));
        seen[static_cast<std::size_t>(i)] = true;
      }
      if (order.size() != n)
        Refuse(fmt::format("the operator order of subgraph {} lists {} of its {} ops", s,
                           order.size(), n));
      for (std::size_t k = 0; k < n; ++k) any |= order[k] != static_cast<std::int32_t>(k);
    }
    return any;
  }

  void WriteSubgraphs(Region::Label list) {
    const auto* subgraphs = model_->subgraphs();
    std::vector<Region::Label> tables;
    std::vector<Region::Field> elements;
    for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s) {
      const bool changed = s < e_.op_order.size() && !e_.op_order[s].empty();
      tables.push_back(changed ? region_.NewLabel() : 0);
      elements.push_back(changed ? Region::ToLabel(tables.back())
                                 : Region::ToOld(PositionOf(file_, subgraphs->Get(s))));
    }
    region_.Vector(list, elements);
    for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s) {
      if (s >= e_.op_order.size() || e_.op_order[s].empty()) continue;
      const fb::SubGraph* sg = subgraphs->Get(s);
      const RawTable raw(file_, PositionOf(file_, sg), source_, fmt::format("SubGraph {}", s));
      if (const auto extra = raw.FieldsBeyond(kSubgraphFields); !extra.empty())
        Refuse(
            fmt::format("subgraph {} has field id {}, newer than the official schema memplan "
                        "knows (ids 0..5); it cannot reorder it faithfully",
                        s, extra.front()));
      std::vector<Region::Field> fields;
      for (std::size_t id = 0; id < kSubgraphFields; ++id)
        fields.push_back(CopyField(raw, id, kSubgraphFieldIsOffset[id]));
      const Region::Label ops = region_.NewLabel();
      fields[kSubgraphOperators] = Region::ToLabel(ops);
      region_.Table(tables[s], fields);
      std::vector<Region::Field> order;
      for (const std::int32_t i : e_.op_order[s])
        order.push_back(Region::ToOld(
            PositionOf(file_, sg->operators()->Get(static_cast<flatbuffers::uoffset_t>(i)))));
      region_.Vector(ops, order);
    }
  }

  // The buffer of an existing offline plan, when nothing else refers to it: the new
  // plan takes its place instead of leaving an orphan.
  std::optional<std::size_t> ReusableBuffer() const {
    const auto* metadata = model_->metadata();
    const auto* buffers = model_->buffers();
    if (!metadata || !buffers) return std::nullopt;
    std::set<std::uint32_t> plan, other;
    for (const fb::Metadata* m : *metadata)
      (m->name() && m->name()->string_view() == kOfflinePlanMetadata ? plan : other)
          .insert(m->buffer());
    if (const auto* mb = model_->metadata_buffer())
      for (const std::int32_t b : *mb) other.insert(static_cast<std::uint32_t>(b));
    for (const fb::SubGraph* sg : *model_->subgraphs())
      if (const auto* tensors = sg->tensors())
        for (const fb::Tensor* t : *tensors) other.insert(t->buffer());
    for (const std::uint32_t b : plan)
      if (b != 0 && b < buffers->size() && !other.contains(b)) return b;
    return std::nullopt;
  }

  std::string_view file_;
  std::string source_;
  const TfliteEmbedding& e_;
  const fb::Model* model_;
  Region region_;
};

// The generated accessors read 8-byte fields, so the bytes must start 8-aligned.
std::vector<std::uint64_t> AlignedCopy(std::string_view bytes) {
  std::vector<std::uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  return aligned;
}
std::string_view View(const std::vector<std::uint64_t>& aligned, std::size_t size) {
  return {reinterpret_cast<const char*>(aligned.data()), size};
}

// The bytes of buffer `b` (inline data only).
std::string_view BufferBytes(const fb::Model* model, std::size_t b) {
  const auto* data = model->buffers()->Get(static_cast<flatbuffers::uoffset_t>(b))->data();
  return data ? std::string_view(reinterpret_cast<const char*>(data->data()), data->size())
              : std::string_view();
}

// Reads the new file back and checks it is the old model with the embedding applied.
void CheckEmbedding(std::string_view old_bytes, const std::string& new_bytes,
                    std::string_view source, const TfliteEmbedding& e) {
  const TfliteModel before = ParseTflite(old_bytes, source);
  const TfliteModel after = ParseTflite(new_bytes, source);
  Graph expected = before.graph;
  for (std::size_t s = 0; s < e.op_order.size(); ++s) {
    if (e.op_order[s].empty()) continue;
    std::vector<Operator> ops;
    for (const std::int32_t i : e.op_order[s])
      ops.push_back(before.graph.subgraphs[s].ops[static_cast<std::size_t>(i)]);
    expected.subgraphs[s].ops = std::move(ops);
  }
  auto fail = [&](const std::string& what) {
    throw InternalError(fmt::format("{}: embed: the written model {}", source, what));
  };
  if (const std::string d = GraphDifference(expected, after.graph); !d.empty()) fail(d);
  if (after.tensor_buffers != before.tensor_buffers) fail("refers to other buffers");
  if (!after.offline_plan || !after.offline_plan->problem.empty() ||
      after.offline_plan->offsets != e.offline_offsets)
    fail("does not carry the offline plan");
  if (after.schema_version != before.schema_version || after.description != before.description)
    fail("has another version or description");
  const fb::Model* old_model = formats::VerifiedModel(old_bytes, source);
  const std::vector<std::uint64_t> copy = AlignedCopy(new_bytes);
  const fb::Model* new_model = formats::VerifiedModel(View(copy, new_bytes.size()), source);
  for (const auto& buffers : before.tensor_buffers)
    for (const std::uint32_t b : buffers)
      if (b < before.buffers && BufferBytes(old_model, b) != BufferBytes(new_model, b))
        fail(fmt::format("changed the data of buffer {}", b));
}

}  // namespace

std::string GraphDifference(const Graph& a, const Graph& b) {
  if (a.subgraphs.size() != b.subgraphs.size()) return "subgraph counts differ";
  for (std::size_t s = 0; s < a.subgraphs.size(); ++s) {
    const Subgraph& x = a.subgraphs[s];
    const Subgraph& y = b.subgraphs[s];
    const std::string where = fmt::format("subgraph {}: ", s);
    if (x.name != y.name) return where + "names differ";
    if (x.inputs != y.inputs || x.outputs != y.outputs) return where + "inputs or outputs differ";
    if (x.tensors.size() != y.tensors.size()) return where + "tensor counts differ";
    for (std::size_t t = 0; t < x.tensors.size(); ++t) {
      const Tensor& p = x.tensors[t];
      const Tensor& q = y.tensors[t];
      if (p.name != q.name || p.type != q.type || p.shape != q.shape || p.bytes != q.bytes ||
          p.is_constant != q.is_constant || p.is_variable != q.is_variable)
        return fmt::format("{}tensor {} ('{}') differs", where, t, p.name);
    }
    if (x.ops.size() != y.ops.size()) return where + "op counts differ";
    for (std::size_t i = 0; i < x.ops.size(); ++i) {
      const Operator& p = x.ops[i];
      const Operator& q = y.ops[i];
      if (p.type != q.type || p.inputs != q.inputs || p.outputs != q.outputs ||
          p.intermediates != q.intermediates || p.called_subgraphs != q.called_subgraphs)
        return fmt::format("{}op {} ({}) differs", where, i, p.type);
    }
  }
  return {};
}

std::string EmbedInTflite(std::string_view bytes, std::string_view source,
                          const TfliteEmbedding& embedding) {
  // Parse fully first: every index checked, so the splice works on a sound model.
  const TfliteModel model = ParseTflite(bytes, source);
  if (embedding.offline_offsets.size() != model.graph.TensorCount())
    throw InternalError(fmt::format("{}: embed: {} offline offsets for {} tensors", source,
                                    embedding.offline_offsets.size(), model.graph.TensorCount()));
  const std::vector<std::uint64_t> aligned = AlignedCopy(bytes);
  const std::string_view file = View(aligned, bytes.size());
  std::string out = Embedder(file, source, embedding).Write();
  CheckEmbedding(file, out, source, embedding);
  return out;
}

}  // namespace memplan

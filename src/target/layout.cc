#include "src/target/layout.h"

#include <algorithm>

namespace memplan::target {

Layout FieldLayout(const TargetAbi& abi, Field field) {
  switch (field) {
    case Field::kBool:
      return {1, 1, 1};
    case Field::kInt16:
      return {2, 2, 2};
    case Field::kInt32:
      return {4, 4, 4};
    case Field::kEnum:
      return {abi.enum_bytes, abi.enum_bytes, abi.enum_bytes};
    case Field::kInt64:
      return {8, abi.int64_align, 8};
    case Field::kPointer:
      return {abi.pointer, abi.pointer, abi.pointer};
  }
  return {1, 1, 1};
}

StructLayout::StructLayout(const TargetAbi& abi, std::initializer_list<Field> fields) : abi_(abi) {
  for (Field f : fields) Add(f);
}

StructLayout& StructLayout::Base(const Layout& base) {
  offset_ = base.data;
  align_ = std::max(align_, base.align);
  return *this;
}

StructLayout& StructLayout::Add(Field field, std::uint64_t count) {
  return Add(FieldLayout(abi_, field), count);
}

StructLayout& StructLayout::Add(const Layout& member, std::uint64_t count) {
  if (count == 0) return *this;
  // A member's own tail padding is never reused by the next field (only a base's is).
  offset_ = AlignUp(offset_, member.align) + member.size * count;
  align_ = std::max(align_, member.align);
  return *this;
}

StructLayout& StructLayout::VtablePointers(std::uint64_t count) {
  return Add(Field::kPointer, count);
}

Layout StructLayout::Done() const {
  return {AlignUp(std::max<Bytes>(offset_, 1), align_), align_, offset_};
}

}  // namespace memplan::target

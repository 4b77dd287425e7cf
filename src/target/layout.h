#pragma once
// C struct layouts computed from field lists for a target's sizes and alignments, so one
// description serves every target (include/memplan/tflm_target.h).

#include <cstdint>
#include <initializer_list>

#include "memplan/tflm_target.h"

namespace memplan::target {

// Size and alignment of a type on a target.
struct Layout {
  Bytes size = 0;   // sizeof, a multiple of align
  Bytes align = 1;  // alignof
  Bytes data = 0;   // size without tail padding (where a derived class's fields may start)
};

// Fields of C structs, by kind.
enum class Field {
  kBool,     // bool, int8_t, uint8_t
  kInt16,    // int16_t
  kInt32,    // int, int32_t, float
  kEnum,     // a C enum: 4 bytes, or 1 where the toolchain uses short enums (arm-none-eabi)
  kInt64,    // int64_t, double
  kPointer,  // any pointer, size_t, intptr_t
};

Layout FieldLayout(const TargetAbi& abi, Field field);

// Builds a struct: fields in declaration order, each at the next multiple of its
// alignment; the size rounds up to the largest alignment.
class StructLayout {
 public:
  explicit StructLayout(const TargetAbi& abi) : abi_(abi) {}
  StructLayout(const TargetAbi& abi, std::initializer_list<Field> fields);
  // A base class (C++): its fields first; a derived class's own fields may start in the
  // base's tail padding, as the Itanium and ARM C++ ABIs place them for non-POD bases.
  StructLayout& Base(const Layout& base);
  StructLayout& Add(Field field, std::uint64_t count = 1);
  StructLayout& Add(const Layout& member, std::uint64_t count = 1);
  // A C++ class with virtual functions: one vtable pointer per polymorphic base.
  StructLayout& VtablePointers(std::uint64_t count);
  Layout Done() const;

 private:
  const TargetAbi& abi_;
  Bytes offset_ = 0;  // end of the last field
  Bytes align_ = 1;   // largest alignment so far
};

using memplan::AlignUp;  // problem.h

}  // namespace memplan::target

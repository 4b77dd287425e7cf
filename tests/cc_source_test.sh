#!/usr/bin/env bash
# The C++ source `memplan embed -o NAME.cc` writes for one .tflite model: written twice, the
# same bytes; compiled as C++11, C++17 and C++20 by g++ and clang++ with -Wall -Wextra
# -Wpedantic -Werror; linked into a program that prints the array and the constants, which must
# be the model `memplan embed -o x.tflite` writes and the sizes of `memplan arena --format json`.
# A model TFLM refuses, or whose arena TFLM's model cannot figure, must be refused with a
# message instead.
#
# Usage: cc_source_test.sh MEMPLAN_BINARY MODEL.tflite WORK_DIR [TARGET]
# Exit 77 (CTest's SKIP_RETURN_CODE) when the model is missing (../shared not there).
set -euo pipefail

memplan=$1
model=$2
work=$3
target=${4:-arm32}
if [ ! -f "$model" ]; then
  echo "SKIP: $model not found (the shared models folder is missing)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/a" "$work/b"
name=checked_model

# The C++ source call must refuse too, saying `expected` (a grep pattern), and write nothing.
expect_source_refused() {
  local why=$1 expected=$2
  if "$memplan" embed "$model" -o "$work/a/$name.cc" --name "$name" --target "$target" -q \
    2>"$work/embed.err" >/dev/null; then
    echo "FAIL: embed wrote C++ source although $why"
    exit 1
  fi
  grep -q "$expected" "$work/embed.err" || {
    echo "FAIL: unclear refusal: $(cat "$work/embed.err")"
    exit 1
  }
  [ ! -e "$work/a/$name.h" ] && [ ! -e "$work/a/$name.cc" ] || {
    echo "FAIL: a refused call left files behind"
    exit 1
  }
  echo "ok: refused with a message: $(head -n 2 "$work/embed.err")"
  exit 0
}

if ! "$memplan" embed "$model" -o "$work/embedded.tflite" --target "$target" -q >/dev/null \
  2>"$work/embed_model.err"; then
  # A model TFLM's kernels refuse gets no plan: no C++ source either, and the same reason.
  grep -q "will refuse this model" "$work/embed_model.err" || {
    echo "FAIL: embed failed: $(cat "$work/embed_model.err")"
    exit 1
  }
  expect_source_refused "TFLM refuses the model" "will refuse this model"
fi
if ! "$memplan" arena "$work/embedded.tflite" --target "$target" --format json \
  >"$work/arena.json" 2>"$work/arena.err"; then
  # No arena figures: embed must refuse to write source, and say why.
  expect_source_refused "memplan arena fails: $(cat "$work/arena.err")" "cannot write C++ source"
fi

for dir in a b; do
  "$memplan" embed "$model" -o "$work/$dir/$name.cc" --name "$name" --target "$target" -q \
    >/dev/null
done
cmp "$work/a/$name.h" "$work/b/$name.h"
cmp "$work/a/$name.cc" "$work/b/$name.cc"
echo "ok: the same bytes on a second run"

# The lower-bound mark stands on each constant's own line, exactly when arena says so.
lines=$(grep -c 'constexpr std::size_t k.*ArenaSize = [0-9]*;  // LOWER BOUND' \
  "$work/a/$name.h" || true)
if grep -q '"lower_bound": true' "$work/arena.json"; then expected=3; else expected=0; fi
[ "$lines" = "$expected" ] || {
  echo "FAIL: $lines constants marked as lower bounds, $expected expected"
  exit 1
}

# Ops the reference kernels refuse are named in the header, exactly when arena names them.
if grep -q '"unsupported_ops": \[\]' "$work/arena.json"; then
  ! grep -q UNSUPPORTED "$work/a/$name.h" || {
    echo "FAIL: the header names unsupported ops that arena does not"
    exit 1
  }
else
  grep -q "UNSUPPORTED by TFLM's reference kernels on $target" "$work/a/$name.h" || {
    echo "FAIL: arena names unsupported ops, the header does not"
    exit 1
  }
fi

cat >"$work/print.cc" <<'PROGRAM'
#include <cstdio>
#include "checked_model.h"
int main() {
  std::fwrite(checked_model::kModel, 1, checked_model::kModelSize, stdout);
  std::fprintf(stderr, "%zu %zu %zu\n", checked_model::kTensorArenaSize,
               checked_model::kPersistentArenaSize, checked_model::kNonPersistentArenaSize);
  return 0;
}
PROGRAM
# The header (through print.cc) in every dialect with both compilers; the array's file too, but
# for models over 512 KB only with g++ -std=c++11 (run below) and clang++ -std=c++20: its text
# is the same for every model but the bytes, and each compile of a 4 MB array takes seconds.
flags=(-Wall -Wextra -Wpedantic -Werror -I "$work/a")
small=$(($(wc -c <"$work/embedded.tflite") <= 512 * 1024))
for compiler in g++ clang++; do
  command -v "$compiler" >/dev/null || {
    echo "FAIL: $compiler is not installed (scripts/setup installs both)"
    exit 1
  }
  for std in c++11 c++17 c++20; do
    if [ "$compiler/$std" = "g++/c++11" ]; then
      "$compiler" "-std=$std" "${flags[@]}" -O0 "$work/a/$name.cc" "$work/print.cc" \
        -o "$work/print"
      continue
    fi
    "$compiler" "-std=$std" "${flags[@]}" -fsyntax-only "$work/print.cc"
    if [ "$small" = 1 ] || [ "$compiler/$std" = "clang++/c++20" ]; then
      "$compiler" "-std=$std" "${flags[@]}" -fsyntax-only "$work/a/$name.cc"
    fi
  done
done
echo "ok: compiles as C++11, C++17 and C++20 with g++ and clang++, warnings as errors"

"$work/print" >"$work/array.bin" 2>"$work/sizes.txt"
cmp "$work/array.bin" "$work/embedded.tflite"
echo "ok: the array is the model embed -o x.tflite writes ($(wc -c <"$work/array.bin") bytes)"
field() { grep -m1 "\"$1\":" "$work/arena.json" | tr -dc '0-9'; }
expected_sizes="$(field minimal_arena_bytes_micro_interpreter) $(field persistent_safe)"
expected_sizes="$expected_sizes $(field non_persistent)"
[ "$(cat "$work/sizes.txt")" = "$expected_sizes" ] || {
  echo "FAIL: constants $(cat "$work/sizes.txt"), memplan arena says $expected_sizes"
  exit 1
}
echo "ok: the constants are memplan arena's on $target: $expected_sizes"

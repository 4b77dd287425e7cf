#!/bin/sh
# Seeds for fuzz_records_readers: real inputs, each prefixed with the byte that picks
# its reader (0 records JSON, 1 MiniMalloc CSV, 2 plan file).
# Usage: fuzz/make_text_seeds.sh MEMPLAN_BINARY SHARED_DIR OUT_DIR
set -eu
memplan=$1 shared=$2 out=$3
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed() {  # seed SELECTOR NAME FILE
  { printf "\\$(printf %03o "$1")"; cat "$3"; } > "$out/$2"
}
for csv in "$shared"/benchmarks/minimalloc/challenging/*.csv; do
  seed 1 "csv_$(basename "$csv")" "$csv"
done
printf 'id,lower,upper,size,alignment,offset\na,0,3,64,16,-1\nb,1,2,32,16,128\nc,2,5,16,16,\n' > "$tmp/c.csv"
seed 1 csv_offsets.csv "$tmp/c.csv"
printf 'lower,end,size\n0,2,10\n1,1,20\n' > "$tmp/e.csv"
seed 1 csv_end.csv "$tmp/e.csv"
for input in zoo:paper_example zoo:tflite_gpu_complex zoo:mobilenet_v2 \
             "$shared/benchmarks/minimalloc/challenging/A.1048576.csv"; do
  name=$(basename "$input" | tr ':.' '__')
  for strategy in offsets/greedy_by_size objects/greedy_by_size; do
    "$memplan" plan "$input" -s "$strategy" --out "$tmp/p.json" -q > /dev/null
    jq -c . "$tmp/p.json" > "$tmp/plan.json"
    seed 2 "plan_${name}_$(dirname "$strategy").json" "$tmp/plan.json"
    [ "$strategy" = offsets/greedy_by_size ] || continue
    # The same records as records JSON (sizes, lifetimes, names, alignment, offsets).
    jq -c '{records: [.tensors[] | [.size, .first, .last]], names: [.tensors[] | .name],
            alignment: .alignment}' "$tmp/p.json" > "$tmp/r.json"
    seed 0 "records_${name}.json" "$tmp/r.json"
    jq -c '{records: [.tensors[] | [.size, .first, .last]], alignment: .alignment,
            fixed_offsets: [.tensors[] | if .index % 3 == 0 then .offset else -1 end]}' \
      "$tmp/p.json" > "$tmp/f.json"
    seed 0 "records_${name}_fixed.json" "$tmp/f.json"
  done
done

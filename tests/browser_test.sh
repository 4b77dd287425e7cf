#!/usr/bin/env bash
# The HTML page of `memplan show` in a real browser (headless Chromium): the page is
# loaded with ?selftest=TENSOR, its script searches the tensor as a user would and checks
# in every plan's map that the tensor's rectangle and lifetime are highlighted, then
# writes the verdict into the DOM, which --dump-dom prints. A name the page does not
# have must fail the same check. Last, a screenshot of the page with the search applied.
#
# Usage: browser_test.sh MEMPLAN_BINARY OUTPUT_DIR
# Exit 77 (CTest's SKIP_RETURN_CODE) when Chromium is not installed.
set -euo pipefail

memplan=$1
out=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (scripts/setup installs Debian's chromium)"
  exit 77
fi

mkdir -p "$out"
page="$out/show.html"
tensor="MobilenetV2/expanded_conv_3/project"
"$memplan" show zoo:mobilenet_v2 --html "$page" --quiet
url="file://${page// /%20}"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: the page is our own file, and the sandbox cannot start as root or in
# most containers.
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
       --disable-extensions --user-data-dir="$profile")

verdict() {  # URL -> the <pre id="selftest"> line of the rendered DOM
  timeout 120 "$browser" "${flags[@]}" --dump-dom "$1" 2>>"$out/chromium.log" |
    grep -o '<pre id="selftest"[^>]*>[^<]*' || true
}

good=$(verdict "$url?selftest=$tensor")
echo "page: $good"
if [[ "$good" != *'data-result="pass"'* ]]; then
  echo "FAIL: the page's self-test did not pass for $tensor (chromium log: $out/chromium.log)"
  exit 1
fi
bad=$(verdict "$url?selftest=no_such_tensor")
if [[ "$bad" != *'data-result="fail"'*'no tensor named no_such_tensor'* ]]; then
  echo "FAIL: the self-test accepted a tensor the page does not have: $bad"
  exit 1
fi

shot="$out/show.png"
rm -f "$shot"
timeout 120 "$browser" "${flags[@]}" --window-size=1500,1000 --screenshot="$shot" \
  "$url?search=$tensor#plan=objects/greedy_by_size" 2>>"$out/chromium.log" >/dev/null
if [ ! -s "$shot" ] || [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
  echo "FAIL: no PNG screenshot at $shot"
  exit 1
fi
echo "ok: $tensor highlighted in every plan; screenshot $shot ($(wc -c <"$shot") B)"

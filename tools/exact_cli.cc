#include "tools/exact_cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "memplan/table.h"

namespace memplan::cli {

namespace {

// Writes "\r..." progress lines to stderr after the first second; ends the line when
// destroyed so later output starts on a fresh line.
struct ProgressLine {
  bool shown = false;
  ~ProgressLine() {
    if (shown) std::fputs("\n", stderr);
  }
  void Show(const ExactProgress& p) {
    if (p.elapsed_s < 1.0) return;
    shown = true;
    std::string asking =
        p.probing_bytes ? fmt::format(", asking {} B", WithThousands(p.probing_bytes)) : "";
    // The large-neighbourhood search: how far above the bound, and how many windows.
    if (p.windows && p.bound_bytes)
      asking = fmt::format(
          ", {:.3f} % above, {} windows",
          100.0 * (static_cast<double>(p.best_bytes) / static_cast<double>(p.bound_bytes) - 1.0),
          p.windows);
    fmt::print(stderr, "\rexact: best {} B, bound {} B{}, {} nodes, {:.1f} s\x1b[K",
               WithThousands(p.best_bytes), WithThousands(p.bound_bytes), asking, p.nodes,
               p.elapsed_s);
    std::fflush(stderr);
  }
};

}  // namespace

void AddExactFlags(CLI::App& cmd, ExactFlags& flags) {
  cmd.add_option("--time-limit", flags.time_limit_s, "seconds for the exact solver (10)")
      ->check(CLI::Range(0.0, 1e6));
  cmd.add_option("--probe-limit", flags.probe_limit_s,
                 "seconds for each capacity the exact solver asks (default: adaptive, starting "
                 "at a 32nd of --time-limit and doubling)")
      ->check(CLI::Range(0.0, 1e6));
  cmd.add_option("--threads", flags.threads,
                 "threads for the exact solver's portfolio (default: every core); the answer "
                 "does not depend on it")
      ->check(CLI::Range(1u, 1024u));
}

ExactOptions MakeExactOptions(const ExactFlags& flags, bool quiet) {
  ExactOptions options;
  options.time_limit = std::chrono::duration<double>(flags.time_limit_s);
  options.per_probe_limit = std::chrono::duration<double>(flags.probe_limit_s);
  options.threads = flags.threads;
  if (!quiet && isatty(STDERR_FILENO)) {
    auto line = std::make_shared<ProgressLine>();
    options.progress = [line](const ExactProgress& p) { line->Show(p); };
  }
  return options;
}

}  // namespace memplan::cli

#include "tools/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace memplan::cli {

namespace {

constexpr auto kRedraw = std::chrono::milliseconds(250);  // status line refresh

// Nothing is shown before this. MEMPLAN_PROGRESS_AFTER_MS changes it, so tests (and
// demos) can see progress of work that has become fast without depending on timing.
std::chrono::steady_clock::duration QuietFor() {
  if (const char* env = std::getenv("MEMPLAN_PROGRESS_AFTER_MS")) {
    char* end = nullptr;
    const long ms = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && ms >= 0) return std::chrono::milliseconds(ms);
  }
  return std::chrono::seconds(1);
}

}  // namespace

Progress::Progress(std::string command, bool quiet, bool status_line)
    : enabled_(!quiet && isatty(STDERR_FILENO)),
      status_line_(status_line),
      command_(std::move(command)),
      start_(std::chrono::steady_clock::now()),
      quiet_for_(QuietFor()) {
  if (enabled_) ticker_ = std::thread([this] { Run(); });
}

Progress::~Progress() {
  Finish();
}

void Progress::Finish() {
  if (!ticker_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  std::lock_guard lock(mutex_);
  ClearLocked();
}

void Progress::Stage(std::string stage) {
  std::lock_guard lock(mutex_);
  stage_ = std::move(stage);
  if (stage_.empty()) ClearLocked();  // another line (the exact solver's) takes over
}

void Progress::Done(std::string line) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  pending_.push_back(std::move(line));
  if (std::chrono::steady_clock::now() - start_ >= quiet_for_) past_second_ = true;
  if (past_second_) FlushLocked();
}

void Progress::Message(const std::string& line) {
  std::lock_guard lock(mutex_);
  ClearLocked();
  fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
}

void Progress::ClearLocked() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void Progress::FlushLocked() {
  if (pending_.empty()) return;
  ClearLocked();
  for (const std::string& line : pending_) fmt::print(stderr, "{}\n", line);
  pending_.clear();
  std::fflush(stderr);
}

void Progress::Run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kRedraw, [this] { return stop_; })) {
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < quiet_for_) continue;
    past_second_ = true;
    FlushLocked();
    if (!status_line_ || stage_.empty()) continue;
    fmt::print(stderr, "\r{}: {}, {:.1f} s\x1b[K", command_, stage_,
               std::chrono::duration<double>(elapsed).count());
    std::fflush(stderr);
    drawn_ = true;
  }
}

}  // namespace memplan::cli

// Runs libonnx's work in a child process (onnx_internal.h: RunIsolated). ONNX 1.12's
// shape-inference functions trust the model they are given; some dereference types that a
// node of an unknown domain never received, and a mutated file can reach code that reads
// out of bounds. The checks before inference reject what is known to do that; the child
// process makes anything left a clear error instead of the end of memplan.
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::formats {

namespace {

std::atomic<bool> g_isolate{true};
bool g_in_child = false;  // set in the child only (one thread there)

// The first byte the child writes says how its work ended; the rest is the work's answer
// or the error's message.
enum class Outcome : char { kDone = 'd', kInput = 'i', kUsage = 'u', kMemory = 'm', kOther = 'x' };

// A whole inference of a large model takes seconds; a child that runs this long is stuck.
constexpr int kChildSeconds = 600;

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The child's side: runs `work`, writes the outcome and leaves without running the
// parent's exit handlers or flushing its copies of the parent's buffers.
[[noreturn]] void RunChild(int fd, const std::function<std::string()>& work) {
  // A fault ends the child by its signal, which the parent names, whatever handlers the
  // parent installed (a sanitizer's would report and exit instead).
  for (const int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(fault, SIG_DFL);
  std::string answer;
  try {
    answer = static_cast<char>(Outcome::kDone) + work();
  } catch (const InputError& e) {
    answer = static_cast<char>(Outcome::kInput) + std::string(e.what());
  } catch (const UsageError& e) {
    answer = static_cast<char>(Outcome::kUsage) + std::string(e.what());
  } catch (const std::bad_alloc&) {
    answer = static_cast<char>(Outcome::kMemory);
  } catch (const std::exception& e) {
    answer = static_cast<char>(Outcome::kOther) + std::string(e.what());
  } catch (...) {
    answer = static_cast<char>(Outcome::kOther);
  }
  _exit(WriteAll(fd, answer) ? 0 : 3);
}

// Reads everything the child writes until it closes the pipe; false when the child is
// still writing after the time limit.
bool ReadAll(int fd, std::string& out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildSeconds);
  char buffer[1 << 16];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

// A page the child writes and the parent reads (which operator ONNX looked up last).
struct SharedNote {
  static constexpr std::size_t kSize = 256;
  SharedNote() {
    void* page = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) text = static_cast<char*>(page);  // zero-filled
  }
  ~SharedNote() {
    if (text) ::munmap(text, kSize);
  }
  SharedNote(const SharedNote&) = delete;
  SharedNote& operator=(const SharedNote&) = delete;
  char* text = nullptr;  // null when no page could be mapped
};

int WaitFor(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// What the child's end says, as the caller would have seen it in-process.
// `last_lookup`: the operator ONNX looked up last in the child, "" when none.
std::string Settle(std::string_view answer, int status, std::string_view source,
                   std::string_view what, std::string_view last_lookup) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    throw InputError(fmt::format(
        "{}: {} crashed on this model (signal {}, {}){}; the file holds something ONNX 1.12 "
        "does not handle (a corrupt field, or an operator or attribute it does not know)",
        source, what, signal, ::strsignal(signal),
        last_lookup.empty() ? std::string()
                            : fmt::format(" at or after operator {}", Printable(last_lookup))));
  }
  if (answer.empty())
    throw InputError(fmt::format("{}: {} stopped without an answer (exit status {})", source, what,
                                 WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  const auto outcome = static_cast<Outcome>(answer.front());
  const std::string_view rest = answer.substr(1);
  switch (outcome) {
    case Outcome::kDone:
      return std::string(rest);
    case Outcome::kInput:
      throw InputError(rest);
    case Outcome::kUsage:
      throw UsageError(rest);
    case Outcome::kMemory:
      throw std::bad_alloc();
    case Outcome::kOther:
      break;
  }
  throw InputError(fmt::format("{}: {} failed: {}", source, what, Printable(rest, 400)));
}

}  // namespace

void SetIsolation(bool isolate) {
  g_isolate = isolate;
}

bool IsIsolated() {
  return g_in_child;
}

std::string RunIsolated(std::string_view source, std::string_view what,
                        const std::function<std::string()>& work) {
  if (!g_isolate || g_in_child) return work();
  // Built before the fork, so no child ever builds it (or waits for a lock) on its own.
  Schemas();
  int fds[2];
  if (::pipe(fds) != 0) return work();  // no pipe to spare: run here, as before
  SharedNote note;
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return work();
  }
  if (child == 0) {
    ::close(fds[0]);
    g_in_child = true;
    if (note.text) NoteLookupsIn(note.text, SharedNote::kSize);
    RunChild(fds[1], work);
  }
  ::close(fds[1]);
  std::string answer;
  const bool finished = ReadAll(fds[0], answer);
  ::close(fds[0]);
  if (!finished) {
    ::kill(child, SIGKILL);
    WaitFor(child);
    throw InputError(fmt::format("{}: {} did not finish within {} s", source, what, kChildSeconds));
  }
  const int status = WaitFor(child);
  return Settle(answer, status, source, what,
                note.text ? std::string_view(note.text, ::strnlen(note.text, SharedNote::kSize))
                          : std::string_view());
}

}  // namespace memplan::formats

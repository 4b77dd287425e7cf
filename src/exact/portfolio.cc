#include "src/exact/portfolio.h"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "src/exact/preorder.h"
#include "src/exact/search.h"

namespace memplan::exact {

namespace {

using Clock = std::chrono::steady_clock;

// Nodes per member in the first round; rounds double up to the largest size.
constexpr std::uint64_t kFirstRound = 512;
constexpr std::uint64_t kLargestRound = std::uint64_t{1} << 15;

enum class State { kWaiting, kRunning, kPaused, kFinished };

// The state all members and the controller share, under one mutex.
struct Shared {
  std::mutex mutex;
  std::condition_variable wake_member;      // a member may run (or must stop)
  std::condition_variable wake_controller;  // a member paused or finished
  bool stop = false;                        // every member must end
  Clock::time_point deadline;
};

// One search of the portfolio, run as a coroutine on its own thread: it pauses at the
// end of each round until the controller lets it go on.
class Member final : public Pacer {
 public:
  Member(const Instance& instance, std::string_view ordering, Units capacity, Shared& shared)
      : instance_(instance), ordering_(ordering), capacity_(capacity), shared_(shared) {}

  void Start() {
    thread_ = std::thread([this] { Main(); });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  bool Tick() override {
    ++nodes_;
    if ((nodes_ & 255) == 0 && Clock::now() > shared_.deadline) return false;
    if (nodes_ < round_end_) return true;
    std::unique_lock lock(shared_.mutex);
    state_ = State::kPaused;
    shared_.wake_controller.notify_all();
    shared_.wake_member.wait(lock, [&] { return state_ == State::kRunning || shared_.stop; });
    return !shared_.stop;
  }

  // Under the mutex: lets the member run until it has `budget` more nodes.
  void Resume(std::uint64_t budget) {
    round_end_ = nodes_ + budget;
    state_ = State::kRunning;
  }

  State state() const { return state_; }
  std::uint64_t nodes() const { return nodes_; }
  std::optional<Search::Outcome> outcome() const { return outcome_; }
  const std::vector<Units>& offsets() const { return offsets_; }

 private:
  void Main() {
    {
      std::unique_lock lock(shared_.mutex);
      shared_.wake_member.wait(lock, [&] { return state_ == State::kRunning || shared_.stop; });
      if (shared_.stop) {
        state_ = State::kFinished;
        shared_.wake_controller.notify_all();
        return;
      }
    }
    // A trailing '.' keeps the initial ranking in the parts of a decomposition.
    const bool fixed = ordering_.ends_with('.');
    Search search(instance_, Preorder(instance_, ordering_), capacity_,
                  fixed ? std::string_view() : ordering_);
    const Search::Outcome outcome = search.Run(*this);
    std::unique_lock lock(shared_.mutex);
    if (outcome == Search::Outcome::kFound) offsets_ = search.offsets();
    outcome_ = outcome;
    state_ = State::kFinished;
    shared_.wake_controller.notify_all();
  }

  const Instance& instance_;
  std::string_view ordering_;
  Units capacity_;
  Shared& shared_;
  std::thread thread_;
  State state_ = State::kWaiting;  // under the mutex
  std::uint64_t nodes_ = 0;        // nodes so far (written by the member only)
  std::uint64_t round_end_ = 0;    // pause when nodes_ reaches this
  std::optional<Search::Outcome> outcome_;
  std::vector<Units> offsets_;
};

}  // namespace

const std::vector<std::string_view>& PortfolioOrderings() {
  static const std::vector<std::string_view> orderings = {"TWA", "TAW", "CAT", "TWA."};
  return orderings;
}

PortfolioAnswer RunPortfolio(const Instance& instance, Units capacity, unsigned threads,
                             Clock::time_point deadline, std::uint64_t node_limit) {
  const auto& orderings = PortfolioOrderings();
  Shared shared;
  shared.deadline = deadline;
  std::vector<std::unique_ptr<Member>> members;
  for (std::string_view ordering : orderings)
    members.push_back(std::make_unique<Member>(instance, ordering, capacity, shared));
  for (auto& m : members) m->Start();
  const std::size_t parallel = std::clamp<std::size_t>(
      threads == 0 ? std::thread::hardware_concurrency() : threads, 1, members.size());

  PortfolioAnswer answer;
  std::optional<std::size_t> winner;
  std::uint64_t round = kFirstRound;
  std::unique_lock lock(shared.mutex);
  while (!winner) {
    std::uint64_t spent = 0;
    for (const auto& m : members) spent += m->nodes();
    if (Clock::now() > deadline || (node_limit && spent >= node_limit)) break;
    std::uint64_t budget = round;
    if (node_limit) budget = std::min(budget, (node_limit - spent) / members.size() + 1);
    // Run every unfinished member for `budget` nodes, `parallel` at a time.
    std::vector<Member*> queue;
    for (const auto& m : members)
      if (m->state() != State::kFinished) queue.push_back(m.get());
    if (queue.empty()) break;
    std::size_t next = 0, running = 0;
    while (next < queue.size() || running > 0) {
      while (running < parallel && next < queue.size()) {
        queue[next++]->Resume(budget);
        ++running;
      }
      shared.wake_member.notify_all();
      shared.wake_controller.wait(lock, [&] {
        std::size_t still = 0;
        for (std::size_t i = 0; i < next; ++i)
          if (queue[i]->state() == State::kRunning) ++still;
        return still < running;
      });
      running = 0;
      for (std::size_t i = 0; i < next; ++i)
        if (queue[i]->state() == State::kRunning) ++running;
    }
    // The member that answered with the fewest nodes wins; ties go to the earlier one.
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto outcome = members[i]->outcome();
      if (!outcome || *outcome == Search::Outcome::kStopped) continue;
      if (!winner || members[i]->nodes() < members[*winner]->nodes()) winner = i;
    }
    round = std::min(round * 2, kLargestRound);
  }
  shared.stop = true;
  shared.wake_member.notify_all();
  lock.unlock();
  for (auto& m : members) m->Join();

  for (const auto& m : members) answer.nodes += m->nodes();
  if (winner) {
    const Member& m = *members[*winner];
    if (*m.outcome() == Search::Outcome::kFound) {
      answer.kind = PortfolioAnswer::Kind::kFound;
      answer.offsets = m.offsets();
    } else {
      answer.kind = PortfolioAnswer::Kind::kExhausted;
    }
  }
  return answer;
}

}  // namespace memplan::exact

#pragma once
// Shared ownership of the memplan mode's layouts and shapes, counted without atomic
// operations. A planner is used by one thread at a time and its layouts and shapes never
// leave it, so the counts need no lock prefix: with libstdc++ its shared pointer under the
// single-threaded policy (a returning cached shape made about six atomic count changes, two
// thirds of its time); with another library the standard shared pointer.
#include <memory>
#include <utility>

namespace memplan::cpuplan {

#if defined(__GLIBCXX__)
template <typename T>
using LocalShared = std::__shared_ptr<T, __gnu_cxx::_S_single>;

template <typename T, typename... Args>
LocalShared<T> MakeLocalShared(Args&&... args) {
  return std::__make_shared<T, __gnu_cxx::_S_single>(std::forward<Args>(args)...);
}
#else
template <typename T>
using LocalShared = std::shared_ptr<T>;

template <typename T, typename... Args>
LocalShared<T> MakeLocalShared(Args&&... args) {
  return std::make_shared<T>(std::forward<Args>(args)...);
}
#endif

}  // namespace memplan::cpuplan

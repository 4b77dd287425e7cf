#pragma once
// Built-in records problems (small published examples), part of the zoo.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// The named built-in records problem, or nullopt.
std::optional<Problem> ZooRecords(std::string_view name);
// (name, description) of every built-in records problem.
std::vector<std::pair<std::string, std::string>> ZooRecordNames();

}  // namespace memplan

#include "remediation/record.h"

#include <array>
#include <utility>

namespace quotient::remediation {
namespace {

constexpr std::array<std::pair<State, std::string_view>, 8> kStateNames = {{
    {State::kHealthy, "healthy"},
    {State::kSuspect, "suspect"},
    {State::kCordoned, "cordoned"},
    {State::kDraining, "draining"},
    {State::kRemediating, "remediating"},
    {State::kValidating, "validating"},
    {State::kEscalated, "escalated"},
    {State::kCancelled, "cancelled"},
}};

}  // namespace

std::string_view StateName(State state) {
  for (const auto& [s, name] : kStateNames) {
    if (s == state) return name;
  }
  return "unknown";
}

std::optional<State> ParseState(std::string_view name) {
  for (const auto& [s, n] : kStateNames) {
    if (n == name) return s;
  }
  return std::nullopt;
}

bool HoldsSlot(State state) {
  return state == State::kCordoned || state == State::kDraining || state == State::kRemediating ||
         state == State::kValidating;
}

}  // namespace quotient::remediation

#include "remediation/plan.h"

#include <type_traits>

namespace quotient::remediation {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

bool IsMutating(const Action& action) {
  return !std::holds_alternative<Event>(action) && !std::holds_alternative<Skipped>(action);
}

std::string Describe(const Action& action) {
  return std::visit(
      Overloaded{
          [](const SetRecord& a) {
            return "SetRecord " + a.node + " " + std::string(StateName(a.record.state));
          },
          [](const Cordon& a) { return "Cordon " + a.node + " " + a.fault_class; },
          [](const Evict& a) { return "Evict " + a.pod + " (" + a.node + ")"; },
          [](const ForceDelete& a) { return "ForceDelete " + a.pod + " (" + a.node + ")"; },
          [](const StartStep& a) {
            return "StartStep " + a.node + " " + a.step + " #" + std::to_string(a.attempt);
          },
          [](const StartValidation& a) {
            return "StartValidation " + a.node + " #" + std::to_string(a.attempt);
          },
          [](const Uncordon& a) { return "Uncordon " + a.node; },
          [](const RemoveTaints& a) { return "RemoveTaints " + a.node; },
          [](const Escalate& a) { return "Escalate " + a.node + ": " + a.why; },
          [](const Event& a) {
            return std::string(a.type == EventType::kWarning ? "Warning " : "Event ") + a.node +
                   " " + a.reason;
          },
          [](const Skipped& a) { return "Skipped " + a.node + " " + a.rail; },
      },
      action);
}

}  // namespace quotient::remediation

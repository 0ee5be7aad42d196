#include "scheduler/action.h"

#include <algorithm>

namespace quotient::scheduler {
namespace {

// A known action that this version does not carry out yet: it records nothing.
class InactiveAction final : public Action {
 public:
  explicit InactiveAction(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void Execute(Session& /*session*/) override {}

 private:
  std::string name_;
};

}  // namespace

const std::vector<std::string>& KnownActionNames() {
  static const std::vector<std::string> kNames = SchedulerConfig::DefaultActions();
  return kNames;
}

bool IsKnownAction(std::string_view name) {
  const auto& names = KnownActionNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsActionAvailable(std::string_view /*name*/) { return false; }

std::unique_ptr<Action> MakeAction(std::string_view name) {
  if (!IsKnownAction(name)) return nullptr;
  return std::make_unique<InactiveAction>(std::string(name));
}

}  // namespace quotient::scheduler

#include "actions/registry.h"

#include <algorithm>

#include "actions/allocate/allocate.h"
#include "framework/config.h"

namespace quotient::actions {
namespace {

// A known action that this version does not carry out yet: it records nothing.
class InactiveAction final : public framework::Action {
 public:
  explicit InactiveAction(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void Execute(framework::Session& /*session*/) override {}

 private:
  std::string name_;
};

}  // namespace

const std::vector<std::string>& KnownActionNames() {
  static const std::vector<std::string> kNames = framework::SchedulerConfig::DefaultActions();
  return kNames;
}

bool IsKnownAction(std::string_view name) {
  const auto& names = KnownActionNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsActionAvailable(std::string_view name) { return name == "allocate"; }

std::unique_ptr<framework::Action> MakeAction(std::string_view name) {
  if (!IsKnownAction(name)) return nullptr;
  if (name == "allocate") return std::make_unique<AllocateAction>();
  return std::make_unique<InactiveAction>(std::string(name));
}

}  // namespace quotient::actions

// scheduling.run.ai/v2 Queue -> core::QueueObject.
//
// KAI keeps a queue's amounts as float64 in odd units (kai-reference §6): GPU in devices (fractions
// allowed), CPU in millicores, memory in MB = 10^6 bytes, and -1 for "unlimited". Here they are
// read from the raw number text exactly and brought to core units: milli-GPUs, millicores, bytes,
// weight x 1000. Amounts finer than the base unit round down, like other capacity.
#include <string>

#include "kube/codecs.h"
#include "kube/object_meta.h"
#include "kube/text_formats.h"

namespace quotient::kube {
namespace {

// How one resource's numbers map onto core units: value x 10^shift, counted in 10^scale units.
struct QueueUnit {
  core::ShareResource resource;
  std::string_view key;
  int shift;
  core::Scale scale;
};
constexpr QueueUnit kQueueUnits[] = {
    {core::ShareResource::kGpu, "gpu", 0, core::Scale::kMilli},       // devices -> milli-GPUs
    {core::ShareResource::kCpu, "cpu", 0, core::Scale::kUnit},        // already millicores
    {core::ShareResource::kMemory, "memory", 6, core::Scale::kUnit},  // MB -> bytes
};

// Whether a number is exactly -1 (also written "-1.0" or "-1e0").
bool IsMinusOne(std::string_view text) {
  const Result<core::Quantity> up =
      ParseShiftedDecimal(text, 0, core::Scale::kMilli, core::Rounding::kUp);
  const Result<core::Quantity> down =
      ParseShiftedDecimal(text, 0, core::Scale::kMilli, core::Rounding::kDown);
  return up.ok() && down.ok() && up.value().value() == -1000 && down.value().value() == -1000;
}

// A float64 amount: a JSON/YAML number, exactly converted; nullopt (with a problem) when bad.
std::optional<core::Quantity> Amount(FieldDecoder& d, const Value* value, const std::string& field,
                                     int shift, core::Scale scale) {
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (value->type() != Value::Type::kNumber) {
    d.Problem(field, "expected a number, got " + std::string(Value::TypeName(value->type())) +
                         (value->type() == Value::Type::kString ? " (\"" + value->text() + "\")"
                                                                : std::string()));
    return std::nullopt;
  }
  Result<core::Quantity> parsed =
      ParseShiftedDecimal(value->text(), shift, scale, core::Rounding::kDown);
  if (!parsed.ok()) {
    d.Problem(field, parsed.message());
    return std::nullopt;
  }
  return parsed.value();
}

// quota and limit: -1 is unlimited; unset stays 0. Other negative amounts are accepted as KAI
// takes them (its CRD admits any number and its scheduler computes with the number as given):
// GPU and CPU keep the negative amount; memory, which KAI scales to bytes and then raises to at
// least -1 (`math.Max(-1, quota*10^6)` in the proportion plugin), becomes unlimited. Either way
// the queue gets a warning.
void DecodeBound(FieldDecoder& d, const Value* value, const std::string& field,
                 const QueueUnit& unit, core::Bound& out, std::vector<std::string>& warnings) {
  if (value != nullptr && value->type() == Value::Type::kNumber && IsMinusOne(value->text())) {
    out = core::Bound::Unlimited();
    return;
  }
  std::optional<core::Quantity> amount = Amount(d, value, field, unit.shift, unit.scale);
  if (!amount) return;
  if (!amount->is_negative()) {
    out = core::Bound::Of(*amount);
    return;
  }
  if (unit.resource == core::ShareResource::kMemory) {
    out = core::Bound::Unlimited();
    warnings.push_back(d.Warn(field, "negative amount " + value->text() +
                                         " (only -1, unlimited, is meant to be negative); read "
                                         "as unlimited, as KAI reads a negative memory amount"));
    return;
  }
  out = core::Bound::Of(*amount);
  warnings.push_back(d.Warn(field, "negative amount " + value->text() +
                                       " (only -1, unlimited, is meant to be negative); used as "
                                       "the number it is, as KAI does"));
}

void DecodeResources(FieldDecoder& d, const Value* resources, core::QueueObject& queue) {
  for (const QueueUnit& unit : kQueueUnits) {
    const std::string field = FieldPath("spec.resources", unit.key);
    const Value* spec = d.Mapping(resources->Find(unit.key), field);
    if (spec == nullptr) continue;
    core::QueueResource& out = queue.resources[unit.resource];
    DecodeBound(d, spec->Find("quota"), FieldPath(field, "quota"), unit, out.quota, queue.warnings);
    DecodeBound(d, spec->Find("limit"), FieldPath(field, "limit"), unit, out.limit, queue.warnings);
    const std::string weight_field = FieldPath(field, "overQuotaWeight");
    const Value* weight = spec->Find("overQuotaWeight");
    std::optional<core::Quantity> weight_milli =
        Amount(d, weight, weight_field, 0, core::Scale::kMilli);
    if (!weight_milli) continue;
    out.over_quota_weight_milli = *weight_milli;
    if (weight_milli->is_negative()) {
      // KAI normalises weights over the unsatisfied siblings and floors each share weight at 0
      // (calcShareWeights in resource_division.go); a negative weight takes part in that sum.
      queue.warnings.push_back(
          d.Warn(weight_field, "negative weight " + weight->text() +
                                   "; used as KAI uses it: normalised over the unsatisfied "
                                   "siblings' weights, each share weight floored at 0"));
    }
  }
}

// KAI's admission webhook refuses a queue without spec.resources, but one created without the
// webhook is scheduled: KAI's scheduler reads it as quota 0, limit 0 and weight 0 for every
// resource (queue_info.getQueueQuota), which the default QueueResource already is.
void WarnMissingResources(FieldDecoder& d, core::QueueObject& queue) {
  queue.warnings.push_back(d.Warn("spec.resources",
                                  "missing; read as KAI's scheduler reads it: quota 0, limit 0 "
                                  "and over-quota weight 0 for gpu, cpu and memory"));
}

}  // namespace

std::optional<core::QueueObject> DecodeQueue(const Value& object, const DecodeContext& context) {
  core::QueueObject queue;
  std::optional<FieldDecoder> decoder =
      DecodeObjectMeta(object, "Queue", Scope::kCluster, context, queue.meta, queue.problems);
  if (!decoder) return std::nullopt;
  FieldDecoder& d = *decoder;

  const Value* spec = d.Mapping(object.Find("spec"), "spec");
  if (spec == nullptr) {
    WarnMissingResources(d, queue);
    return queue;
  }
  queue.display_name = d.String(spec->Find("displayName"), "spec.displayName").value_or("");
  queue.parent = d.String(spec->Find("parentQueue"), "spec.parentQueue").value_or("");
  queue.priority = d.Int32(spec->Find("priority"), "spec.priority");
  if (const Value* resources = d.Mapping(spec->Find("resources"), "spec.resources")) {
    DecodeResources(d, resources, queue);
  } else if (spec->Find("resources") == nullptr || spec->Find("resources")->is_null()) {
    WarnMissingResources(d, queue);
  }
  queue.preempt_min_runtime = d.Duration(spec->Find("preemptMinRuntime"), "spec.preemptMinRuntime");
  queue.reclaim_min_runtime = d.Duration(spec->Find("reclaimMinRuntime"), "spec.reclaimMinRuntime");
  return queue;
}

}  // namespace quotient::kube

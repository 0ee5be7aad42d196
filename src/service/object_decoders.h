// From API objects as the informers receive them (RawObject JSON) to the core objects the
// scheduling cycle reads, through the same kube codecs `quotient schedule` uses for files — so a
// manifest and a live cluster are read by one set of rules.
//
// A decoder fails only when the object cannot be read at all (not JSON, no name); fields it
// could not read travel in the object's `problems` and make it unschedulable later, exactly as
// for manifests. Warnings go to the returned object's problems, not to a log here.
#pragma once

#include "common/status.h"
#include "core/objects.h"
#include "kubeclient/raw_object.h"

namespace quotient::service {

Result<core::NodeObject> DecodeNodeObject(const kubeclient::RawObject& raw);
Result<core::PodObject> DecodePodObject(const kubeclient::RawObject& raw);
Result<core::QueueObject> DecodeQueueObject(const kubeclient::RawObject& raw);
Result<core::PodGroupObject> DecodePodGroupObject(const kubeclient::RawObject& raw);
Result<core::PriorityClassObject> DecodePriorityClassObject(const kubeclient::RawObject& raw);
Result<core::PodDisruptionBudgetObject> DecodePodDisruptionBudgetObject(
    const kubeclient::RawObject& raw);

}  // namespace quotient::service

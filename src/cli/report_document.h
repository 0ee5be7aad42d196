// The `quotient schedule` output contract as a JSON document (nlohmann::json): exactly the fields
// documented in docs/schedule-command.md, in that order. `-o yaml` writes the same document as
// YAML, so the two formats cannot drift apart.
//
// Units: gpu in GPUs (a decimal number), cpu in millicores, memory in bytes; null = unlimited.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "scheduler/run.h"

namespace quotient::cli {

// nlohmann::ordered_json keeps fields in insertion order, so the output reads like the contract.
using Document = nlohmann::ordered_json;

Document ReportDocument(const scheduler::RunReport& report);

std::string ToJson(const Document& document);  // pretty-printed, two-space indent
std::string ToYaml(const Document& document);

}  // namespace quotient::cli

// `-o table`: the run report as tables a person reads in a terminal.
#pragma once

#include <string>

#include "scheduler/run.h"

namespace quotient::cli {

std::string ReportTables(const scheduler::RunReport& report);

}  // namespace quotient::cli

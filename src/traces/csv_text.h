// What the trace readers share: a CSV file's text as the parser wants it, and where a bad value
// sits, for error messages.
#pragma once

#include <string>

#include "common/status.h"

namespace quotient::traces {

// A file's text without its trailing blank lines (the Pollux copy of the Philly job list ends
// with one, which the parser would read as a row with too few columns), ending in one newline.
Result<std::string> ReadCsvText(const std::string& path);

// "jobs.csv:12: column duration".
std::string CsvWhere(const std::string& file, unsigned line, const char* column);

}  // namespace quotient::traces

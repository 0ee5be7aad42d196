#include "traces/csv_text.h"

#include <fstream>
#include <sstream>

namespace quotient::traces {

Result<std::string> ReadCsvText(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::Error(path + ": cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  std::string out = text.str();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  out += '\n';
  return out;
}

std::string CsvWhere(const std::string& file, unsigned line, const char* column) {
  return file + ":" + std::to_string(line) + ": column " + column;
}

}  // namespace quotient::traces

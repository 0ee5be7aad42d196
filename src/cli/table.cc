#include "cli/table.h"

#include <algorithm>

namespace quotient::cli {

std::string Table::Render() const {
  std::vector<size_t> widths(header_.size(), 0);
  const auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  const auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& row : rows_) out += line(row);
  if (rows_.empty()) out += "(none)\n";
  return out;
}

}  // namespace quotient::cli

// Table: left-aligned text columns for terminal output.
#pragma once

#include <string>
#include <vector>

namespace quotient::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  // Columns separated by two spaces, the last column unpadded; "(none)" when there are no rows.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace quotient::cli

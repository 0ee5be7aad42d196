// The FGD experiment's figure: unallocated GPU % against arrived GPU % (the paper's Fig. 9(a)),
// as one self-contained SVG. Our policies are lines (the median over seeds at every arrived %);
// the paper's are markers at the arrived % its summary gives (90 to 130).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace quotient::experiments {

struct PlotLine {
  std::string label;
  std::vector<int64_t> unallocated_centi;  // by arrived % 0..130
};

struct PlotMarkers {
  std::string label;
  std::map<int, int64_t> unallocated_centi;  // arrived % -> hundredths of a percent
};

// Draws arrived % from `from_percent` to 130; the vertical axis reaches the largest value drawn,
// rounded up to a multiple of 5%. The same input gives the same bytes.
void WriteUnallocatedPlot(const std::string& title, const std::vector<PlotLine>& lines,
                          const std::vector<PlotMarkers>& markers, int from_percent,
                          std::ostream& out);

}  // namespace quotient::experiments

// Every node's GPUs at one instant as an inline SVG grid, for the HTML report (html_report.h).
//
// Each node is a small block of cells, one per GPU, in rows of up to four (eight on small
// clusters, where blocks are larger and named); blocks flow left to right and wrap. A cell is
// filled with the colour of the queue holding it; a fractional holder fills its portion of the
// cell's width, so a shared GPU shows its holders side by side and its free room as idle grey.
// Nodes that cannot take pods are hatched and outlined. Each block's tooltip names the node and
// what each queue holds there. A cluster of 1,000 8-GPU nodes stays about 1,100 by 700 pixels,
// drawn as one path per colour.
#pragma once

#include <string>

#include "simulate/simulation.h"
#include "simulate/svg_format.h"

namespace quotient::simulate::svg {

// One <svg> element at most `max_width_px` wide. `id` makes its pattern ids unique in the page.
std::string OccupancyGrid(const OccupancySnapshot& snapshot, const Palette& palette,
                          const std::string& id, int max_width_px);

// GPUs held at the instant, in milli-GPU: each GPU's holders, at most the whole GPU.
int64_t HeldGpuMilli(const OccupancySnapshot& snapshot);

}  // namespace quotient::simulate::svg

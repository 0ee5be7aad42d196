// The page around the report's sections (html_report_sections.h): the document head with its
// style sheet, the header naming the runs, the section index and the footer.
#include "simulate/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "simulate/html_report_sections.h"

namespace quotient::simulate {
namespace {

using svg::Escape;

constexpr const char* kStyle = R"css(
:root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#f3f4f6}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans",
"Liberation Sans",Arial,sans-serif;-webkit-font-smoothing:antialiased}
header{background:#0f172a;color:#e2e8f0;padding:28px 0 22px}
.wrap{max-width:1180px;margin:0 auto;padding:0 24px}
header h1{margin:0 0 6px;font-size:26px;font-weight:650;color:#fff;letter-spacing:-.01em}
header .runs{margin:0;padding:0;list-style:none;color:#cbd5e1}
header .runs li{margin:2px 0}
header .runs b{color:#fff;font-weight:600}
header .meta{margin:8px 0 0;color:#94a3b8;font-size:13px}
nav{background:#fff;border-bottom:1px solid var(--line);position:sticky;top:0;z-index:1}
nav .wrap{display:flex;gap:20px;flex-wrap:wrap;padding-top:10px;padding-bottom:10px}
nav a{color:#334155;text-decoration:none;font-size:13px;font-weight:500}
nav a:hover{color:#2563eb}
main{padding-top:8px;padding-bottom:40px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:20px 24px 22px;
margin:18px 0;box-shadow:0 1px 2px rgba(15,23,42,.04)}
h2{font-size:18px;font-weight:650;margin:0 0 4px;letter-spacing:-.005em}
h3{font-size:14px;font-weight:600;margin:18px 0 8px}
.note{color:var(--muted);margin:0 0 16px;font-size:13px;max-width:900px}
.none,.muted{color:var(--muted);font-weight:400}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:12px;
margin-bottom:20px}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 14px;background:#fafafa}
.card .k{font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.06em;
font-weight:600}
.card .v{font-size:24px;font-weight:650;font-variant-numeric:tabular-nums;margin-top:2px;
white-space:nowrap}
.card .d{font-size:12px;color:var(--muted)}
.cards.compare{grid-template-columns:repeat(auto-fill,minmax(300px,1fr))}
.card .cmp{display:flex;justify-content:space-between;align-items:baseline;gap:10px;
font-size:13px;margin-top:4px}
.card .cmp .who{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0}
.card .cmp .v{font-size:18px;margin:0;white-space:nowrap}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:6px}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;
vertical-align:-1px}
.tables{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:5px 10px;text-align:right;border-bottom:1px solid var(--line);white-space:nowrap}
thead th{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);
font-weight:600;border-bottom:2px solid var(--line);vertical-align:bottom}
thead th.group{text-align:center;border-bottom:1px solid var(--line);padding-bottom:2px}
tbody th,thead th:first-child,thead th.run{text-align:left}
tbody th{font-weight:500}
td.run{text-align:left}
td.none{text-align:left}
details{margin-top:16px;font-size:13px}
figure{margin:0}
figcaption{font-weight:600;font-size:13px;margin:0 0 4px;color:#1f2937}
svg{display:block;max-width:100%;height:auto}
svg text{font-family:inherit}
.hover rect:hover{fill-opacity:.06}
.multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:18px 20px}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:20px 28px}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:12px;color:#374151;margin:0 0 12px}
.legend .item{display:inline-flex;align-items:center;gap:6px}
.legend svg{display:inline-block}
.legend .cell{display:inline-block;width:12px;height:12px;border-radius:1px}
.snapshots{display:flex;flex-wrap:wrap;gap:20px 28px;align-items:flex-start}
.snapshots figcaption .muted{display:block;font-size:12px}
footer{color:var(--muted);font-size:12px;padding-bottom:32px}
)css";

int64_t LongestEnd(const std::vector<ReportRun>& runs) {
  int64_t end = 0;
  for (const ReportRun& r : runs) end = std::max(end, r.result->end.count());
  return end;
}

svg::Palette QueueColors(const std::vector<ReportRun>& runs) {
  std::vector<std::string> names;
  for (const ReportRun& run : runs) {
    const SimulationResult& r = *run.result;
    for (const PodOutcome& p : r.pods) names.push_back(p.queue);
    for (size_t i = 0; i < r.queues.size(); ++i) {
      // Samples repeat the queues every cycle: the first cycle's (and any new name) will do.
      if (i == 0 || r.queues[i].queue != r.queues[i - 1].queue) names.push_back(r.queues[i].queue);
    }
    for (const OccupancySnapshot& s : r.occupancy) {
      for (const NodeOccupancy& n : s.nodes) {
        for (const auto& gpu : n.gpus) {
          for (const GpuHolder& h : gpu) names.push_back(h.queue);
        }
      }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  return svg::Palette(std::move(names));
}

std::string Header(std::string_view title, const html::ReportContext& c) {
  std::string runs;
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const ReportRun& run = c.runs[i];
    const std::string dot =
        c.Compare()
            ? fmt::format("<span class=\"dot\" style=\"background:{}\"></span>", svg::RunColor(i))
            : "";
    runs += fmt::format("<li>{}<b>{}</b>{}{}</li>", dot, Escape(run.label),
                        run.description.empty() ? "" : " \u2014 ", Escape(run.description));
  }
  return fmt::format(
      "<header><div class=\"wrap\"><h1>{}</h1><ul class=\"runs\">{}</ul><p class=\"meta\">"
      "Simulated {} \u00b7 times count from the start of the simulation</p></div></header>",
      Escape(title), runs, svg::Duration(c.end_s, 3));
}

constexpr const char* kNav =
    "<nav><div class=\"wrap\"><a href=\"#summary\">Summary</a><a href=\"#allocation\">Allocation"
    "</a><a href=\"#queues\">Queues</a><a href=\"#waits\">Waits</a><a href=\"#evictions\">"
    "Evictions</a><a href=\"#pressure\">Pending &amp; fragmentation</a><a href=\"#occupancy\">"
    "Occupancy</a></div></nav>";

}  // namespace

void WriteHtmlReport(std::string_view title, const std::vector<ReportRun>& runs,
                     std::ostream& out) {
  html::ReportContext c{{}, {}, svg::Palette({}), 0};
  for (const ReportRun& run : runs) {
    if (run.result != nullptr) c.runs.push_back(run);
  }
  c.palette = QueueColors(c.runs);
  c.end_s = LongestEnd(c.runs);
  for (const ReportRun& run : c.runs) c.summaries.push_back(Summarize(*run.result));

  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      << "<title>" << Escape(title) << "</title><style>" << kStyle << "</style></head>\n<body>"
      << Header(title, c) << kNav << "\n<main class=\"wrap\">\n";
  if (c.runs.empty()) {
    out << "<section><h2>No runs</h2><p class=\"note\">Nothing was simulated.</p></section>";
  } else {
    out << html::SummarySection(c) << '\n'
        << html::AllocationSection(c) << '\n'
        << html::QueuesSection(c) << '\n'
        << html::WaitsSection(c) << '\n'
        << html::EvictionsSection(c) << '\n'
        << html::PressureSection(c) << '\n'
        << html::OccupancySection(c) << '\n';
  }
  out << "</main>\n<footer><div class=\"wrap\">Written by <code>quotient simulate</code>. "
      << "Hover over a plot for its values; every figure comes from the same samples as the "
      << "CSV files.</div></footer>\n</body></html>\n";
}

}  // namespace quotient::simulate

// The report's summary: headline cards, the totals table (a column per run) and the per-queue
// table, from run_summary.h's figures.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "simulate/html_report_sections.h"

namespace quotient::simulate::html {
namespace {

using svg::Escape;

std::string Wait(int64_t s) { return s == 0 ? "0s" : svg::Duration(s); }

// Every pod's wait in the run, ascending.
std::vector<int64_t> AllWaits(const RunSummary& s) {
  std::vector<int64_t> all;
  for (const QueueSummary& q : s.queues) all.insert(all.end(), q.waits.begin(), q.waits.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::string Fairness(int64_t permille) { return permille < 0 ? "\u2014" : Milli(permille); }

struct CardValue {
  std::string value;
  std::string detail;
};

// A card: its title, then the value of each run (with the run's tag when comparing).
std::string Card(const ReportContext& c, const std::string& title,
                 const std::function<CardValue(size_t)>& value_of) {
  std::string out = fmt::format("<div class=\"card\"><div class=\"k\">{}</div>", title);
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const CardValue v = value_of(i);
    if (c.Compare()) {
      out += fmt::format(
          "<div class=\"cmp\"><span class=\"who\">{}</span><span class=\"v\">{}</span></div>",
          RunTag(c, i), Escape(v.value));
    } else {
      out += fmt::format("<div class=\"v\">{}</div><div class=\"d\">{}</div>", Escape(v.value),
                         Escape(v.detail));
    }
  }
  return out + "</div>";
}

std::string Cards(const ReportContext& c) {
  std::string out = c.Compare() ? "<div class=\"cards compare\">" : "<div class=\"cards\">";
  out += Card(c, "GPU allocation", [&](size_t i) {
    const RunSummary& s = c.summaries[i];
    return CardValue{Percent(s.allocation_permille),
                     "of GPU time; " + Percent(s.shared_allocation_permille) + " shared"};
  });
  out += Card(c, "Pods completed", [&](size_t i) {
    const RunSummary& s = c.summaries[i];
    // A comparison's card has room for "24 / 24" on one line; one run's states it in words.
    if (c.Compare()) return CardValue{fmt::format("{} / {}", s.completed, s.pods), ""};
    return CardValue{
        std::to_string(s.completed),
        fmt::format("of {} pods; {} running, {} pending at the end", s.pods, s.running, s.pending)};
  });
  out += Card(c, "Wait p95, all pods", [&](size_t i) {
    const std::vector<int64_t> waits = AllWaits(c.summaries[i]);
    return CardValue{Wait(Percentile(waits, 95)),
                     fmt::format("p50 {}, longest {}", Wait(Percentile(waits, 50)),
                                 Wait(waits.empty() ? 0 : waits.back()))};
  });
  out += Card(c, "Evictions", [&](size_t i) {
    const RunSummary& s = c.summaries[i];
    return CardValue{std::to_string(s.evictions),
                     Milli(s.lost_gpu_milli_hours) + " GPU-hours destroyed"};
  });
  out += Card(c, "Fairness (Jain)", [&](size_t i) {
    return CardValue{Fairness(c.summaries[i].fairness_permille), "1 = every queue at its share"};
  });
  out += Card(c, "Simulated", [&](size_t i) {
    const RunSummary& s = c.summaries[i];
    return CardValue{svg::Duration(s.end_s, c.Compare() ? 3 : 2),
                     fmt::format("{} scheduling cycles", s.cycles)};
  });
  return out + "</div>";
}

std::string TotalsTable(const ReportContext& c) {
  std::string out = "<table class=\"totals\"><thead><tr><th></th>";
  for (size_t i = 0; i < c.runs.size(); ++i) {
    out += fmt::format("<th>{}</th>", c.Compare() ? RunTag(c, i) : Escape(c.runs[i].label));
  }
  out += "</tr></thead><tbody>";
  const auto row = [&](const std::string& name, const std::function<std::string(size_t)>& cell) {
    out += fmt::format("<tr><th>{}</th>", name);
    for (size_t i = 0; i < c.runs.size(); ++i) out += "<td>" + Escape(cell(i)) + "</td>";
    out += "</tr>";
  };
  const auto& s = c.summaries;
  row("Simulated time", [&](size_t i) { return svg::Duration(s[i].end_s, 3); });
  row("Scheduling cycles", [&](size_t i) { return std::to_string(s[i].cycles); });
  row("Pods", [&](size_t i) { return std::to_string(s[i].pods); });
  row("Completed / running / pending", [&](size_t i) {
    return fmt::format("{} / {} / {}", s[i].completed, s[i].running, s[i].pending);
  });
  row("GPU allocation (of GPU time)", [&](size_t i) { return Percent(s[i].allocation_permille); });
  row("Held by fractional pods",
      [&](size_t i) { return Percent(s[i].shared_allocation_permille); });
  row("Evictions", [&](size_t i) { return std::to_string(s[i].evictions); });
  row("GPU-hours destroyed", [&](size_t i) { return Milli(s[i].lost_gpu_milli_hours); });
  row("Partly used GPUs (mean)", [&](size_t i) { return Milli(s[i].mean_partly_used_gpus_milli); });
  row("Stranded GPUs (mean)", [&](size_t i) { return Milli(s[i].mean_stranded_gpus_milli); });
  row("Jain's fairness index (mean)", [&](size_t i) { return Fairness(s[i].fairness_permille); });
  return out + "</tbody></table>";
}

std::string QueueTable(const ReportContext& c) {
  std::set<std::string> names;
  for (const RunSummary& s : c.summaries) {
    for (const QueueSummary& q : s.queues) names.insert(q.queue);
  }
  if (names.empty()) return "";
  // Two header rows: the waits' and completion times' percentiles under one heading each.
  std::string out = "<table class=\"queues\"><thead><tr><th rowspan=\"2\">Queue</th>";
  if (c.Compare()) out += "<th rowspan=\"2\" class=\"run\">Run</th>";
  out +=
      "<th rowspan=\"2\">Pods</th><th rowspan=\"2\">Ran</th><th rowspan=\"2\">Done</th>"
      "<th rowspan=\"2\">Evicted</th><th colspan=\"4\" class=\"group\">Wait</th>"
      "<th colspan=\"2\" class=\"group\">Completion</th></tr><tr><th>p50</th><th>p95</th>"
      "<th>p99</th><th>max</th><th>p50</th><th>p95</th></tr></thead><tbody>";
  for (const std::string& name : names) {
    for (size_t i = 0; i < c.runs.size(); ++i) {
      const QueueSummary* q = nullptr;
      for (const QueueSummary& candidate : c.summaries[i].queues) {
        if (candidate.queue == name) q = &candidate;
      }
      out += "<tr>";
      if (i == 0) {
        out += fmt::format("<th{}><span class=\"sw\" style=\"background:{}\"></span>{}</th>",
                           c.Compare() ? fmt::format(" rowspan=\"{}\"", c.runs.size()) : "",
                           c.palette.Color(name), Escape(name.empty() ? "(no queue)" : name));
      }
      if (c.Compare()) out += "<td class=\"run\">" + RunTag(c, i) + "</td>";
      if (q == nullptr) {
        out += "<td colspan=\"10\" class=\"none\">no pods</td></tr>";
        continue;
      }
      out += fmt::format(
          "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>",
          q->pods, q->ran, q->completed, q->evictions, Wait(q->wait_p50), Wait(q->wait_p95),
          Wait(q->wait_p99), Wait(q->waits.empty() ? 0 : q->waits.back()), Wait(q->completion_p50),
          Wait(q->completion_p95));
    }
  }
  return out + "</tbody></table>";
}

std::string Diagnostics(const ReportContext& c) {
  constexpr size_t kShown = 50;
  std::string items;
  size_t count = 0;
  for (const ReportRun& run : c.runs) {
    for (const core::Diagnostic& d : run.result->diagnostics) {
      if (++count <= kShown) items += "<li>" + Escape(d.ToString()) + "</li>";
    }
  }
  if (count == 0) return "";
  return fmt::format(
      "<details class=\"diagnostics\"><summary>{} message{} about the input{}</summary><ul>{}"
      "</ul></details>",
      count, count == 1 ? "" : "s", count > kShown ? fmt::format(" (first {})", kShown) : "",
      items);
}

}  // namespace

std::string RunTag(const ReportContext& c, size_t run) {
  return fmt::format("<span class=\"dot\" style=\"background:{}\"></span>{}", svg::RunColor(run),
                     Escape(c.runs[run].label));
}

std::string SummarySection(const ReportContext& c) {
  return fmt::format(
      "<section id=\"summary\"><h2>Summary</h2><p class=\"note\">Time-weighted over the run: "
      "each cycle's state counts for the time until the next cycle. Waits are from arrival to "
      "first start, as nearest-rank percentiles.</p>{}<div class=\"tables\">{}{}</div>{}"
      "</section>",
      Cards(c), TotalsTable(c), QueueTable(c), Diagnostics(c));
}

}  // namespace quotient::simulate::html

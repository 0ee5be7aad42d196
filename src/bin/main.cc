// The single `quotient` binary; each component is a subcommand.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli/bench_command.h"
#include "cli/generate_command.h"
#include "cli/gpu_reservation_command.h"
#include "cli/node_agent_command.h"
#include "cli/plugin_command.h"
#include "cli/podgrouper_command.h"
#include "cli/remediator_command.h"
#include "cli/schedule_command.h"
#include "cli/scheduler_command.h"
#include "cli/simulate_command.h"
#include "cli/trace_command.h"
#include "cli/validate_command.h"
#include "cli/webhook_command.h"

namespace {

// kubectl runs a plugin `kubectl-quotient` found on PATH for `kubectl quotient ...`: as that
// name, the binary is its `kubectl` subcommand group.
std::vector<char*> PluginArguments(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string_view self = argv[0];
  if (const auto slash = self.rfind('/'); slash != std::string_view::npos) {
    self = self.substr(slash + 1);
  }
  static char group[] = "kubectl";
  if (self == "kubectl-quotient") args.insert(args.begin() + 1, group);
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args = PluginArguments(argc, argv);
  argc = static_cast<int>(args.size());
  argv = args.data();
  CLI::App app{"Quotient: a GPU scheduler for Kubernetes, compatible with KAI Scheduler"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "quotient 0.1.0");
  quotient::cli::ScheduleFlags schedule_flags;
  CLI::App* schedule = quotient::cli::AddScheduleCommand(app, schedule_flags);
  quotient::cli::SchedulerFlags scheduler_flags;
  CLI::App* scheduler = quotient::cli::AddSchedulerCommand(app, scheduler_flags);
  quotient::cli::PodGrouperFlags podgrouper_flags;
  CLI::App* podgrouper = quotient::cli::AddPodGrouperCommand(app, podgrouper_flags);
  quotient::cli::WebhookFlags webhook_flags;
  CLI::App* webhook = quotient::cli::AddWebhookCommand(app, webhook_flags);
  quotient::cli::GpuReservationFlags gpu_reservation_flags;
  CLI::App* gpu_reservation = quotient::cli::AddGpuReservationCommand(app, gpu_reservation_flags);
  quotient::cli::NodeAgentFlags node_agent_flags;
  CLI::App* node_agent = quotient::cli::AddNodeAgentCommand(app, node_agent_flags);
  quotient::cli::RemediatorFlags remediator_flags;
  CLI::App* remediator = quotient::cli::AddRemediatorCommand(app, remediator_flags);
  quotient::cli::SimulateFlags simulate_flags;
  CLI::App* simulate = quotient::cli::AddSimulateCommand(app, simulate_flags);
  quotient::cli::TracePhillyFlags trace_philly_flags;
  quotient::cli::TraceOpenbFlags trace_openb_flags;
  const quotient::cli::TraceCommands trace =
      quotient::cli::AddTraceCommand(app, trace_philly_flags, trace_openb_flags);
  quotient::cli::GenerateClusterFlags generate_cluster_flags;
  quotient::cli::GenerateDemoFlags generate_demo_flags;
  const quotient::cli::GenerateCommands generate =
      quotient::cli::AddGenerateCommand(app, generate_cluster_flags, generate_demo_flags);
  quotient::cli::BenchFgdFlags bench_fgd_flags;
  CLI::App* bench_fgd = quotient::cli::AddBenchCommand(app, bench_fgd_flags);
  quotient::cli::ValidateFlags validate_flags;
  CLI::App* validate = quotient::cli::AddValidateCommand(app, validate_flags);
  quotient::cli::PluginFlags plugin_flags;
  const quotient::cli::PluginCommands plugin = quotient::cli::AddPluginCommands(app, plugin_flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and usage
    return 2;     // bad usage
  }
  if (schedule->parsed()) {
    return quotient::cli::RunSchedule(schedule_flags, std::cin, std::cout, std::cerr);
  }
  if (scheduler->parsed()) return quotient::cli::RunScheduler(scheduler_flags);
  if (podgrouper->parsed()) return quotient::cli::RunPodGrouper(podgrouper_flags);
  if (webhook->parsed()) return quotient::cli::RunWebhook(webhook_flags);
  if (gpu_reservation->parsed()) return quotient::cli::RunGpuReservation(gpu_reservation_flags);
  if (node_agent->parsed()) return quotient::cli::RunNodeAgent(node_agent_flags);
  if (remediator->parsed()) return quotient::cli::RunRemediator(remediator_flags);
  if (trace.philly->parsed()) {
    return quotient::cli::RunTracePhilly(trace_philly_flags, std::cout, std::cerr);
  }
  if (trace.openb->parsed()) {
    return quotient::cli::RunTraceOpenb(trace_openb_flags, std::cout, std::cerr);
  }
  if (simulate->parsed()) {
    return quotient::cli::RunSimulate(simulate_flags, std::cin, std::cout, std::cerr);
  }
  if (generate.cluster->parsed()) {
    return quotient::cli::RunGenerateCluster(generate_cluster_flags, std::cout, std::cerr);
  }
  if (generate.demo->parsed()) {
    return quotient::cli::RunGenerateDemo(generate_demo_flags, std::cout, std::cerr);
  }
  if (bench_fgd->parsed()) return quotient::cli::RunBenchFgd(bench_fgd_flags, std::cout, std::cerr);
  if (validate->parsed()) return quotient::cli::RunValidate(validate_flags, std::cout, std::cerr);
  if (plugin.group->parsed()) {
    const bool colour = isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
    return quotient::cli::RunPlugin(plugin, plugin_flags, std::cout, std::cerr, colour);
  }
  return 2;
}

// kai_diff: Quotient's decisions against KAI's own code (the kai-oracle), on generated cases and
// on the translated KAI unit-test cases. Subcommands:
//   corpus       generated cases: the agreement table; --repro-dir shrinks divergences
//   kai-cases    the folders of test/kai-cases: agreement per KAI test file
//   generate     writes one generated case as a scenario folder
//   fake-oracle  a stand-in oracle speaking the batch protocol (Quotient, perturbed)
// Exit status: 0 when agreement reaches --threshold, 1 below it, 2 for bad usage.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "corpus.h"
#include "engines.h"
#include "fake_oracle.h"
#include "generator.h"
#include "kai_cases.h"
#include "repro.h"

namespace {

namespace fs = std::filesystem;
using namespace quotient::kaidiff;

struct Common {
  std::string quotient = KAI_DIFF_QUOTIENT_BINARY;
  std::string oracle = KAI_DIFF_ORACLE_BINARY;
  std::vector<std::string> oracle_args;
  std::string known = KAI_DIFF_KNOWN_DIFFERENCES;
  std::string work_dir;
  int runs = 2;
  int confirm_runs = 2;
  int oracle_timeout = 300;
  double threshold = 0;
};

void AddCommon(CLI::App& app, Common& c) {
  app.add_option("--quotient", c.quotient, "the quotient binary")->capture_default_str();
  app.add_option("--oracle", c.oracle, "the oracle command (run as: ORACLE [ARGS...] batch)")
      ->capture_default_str();
  app.add_option("--oracle-arg", c.oracle_args, "an argument before `batch` (repeatable)");
  app.add_option("--known", c.known, "known-differences.yaml")->capture_default_str();
  app.add_option("--work-dir", c.work_dir, "where case files go (default: a fresh temp folder)");
  app.add_option("--runs", c.runs, "oracle runs per case (KAI's own variation)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10));
  app.add_option("--confirm-runs", c.confirm_runs,
                 "more oracle runs for a case that diverges after --runs (0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 20));
  app.add_option("--oracle-timeout", c.oracle_timeout, "seconds to wait for one oracle answer")
      ->capture_default_str();
  app.add_option("--threshold", c.threshold, "least agreement in percent for exit status 0")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
}

fs::path WorkDir(const Common& c) {
  if (!c.work_dir.empty()) return c.work_dir;
  std::string templ = (fs::temp_directory_path() / "kai-diff-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return templ;
}

std::vector<std::string> OracleCommand(const Common& c) {
  std::vector<std::string> cmd = {c.oracle};
  cmd.insert(cmd.end(), c.oracle_args.begin(), c.oracle_args.end());
  return cmd;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kai_diff: Quotient against KAI's scheduler code"};
  app.require_subcommand(1);

  Common common;
  CorpusOptions corpus;
  uint64_t seed = 1;
  std::string repro_dir, divergences;
  CLI::App* corpus_cmd = app.add_subcommand("corpus", "generated cases against the oracle");
  AddCommon(*corpus_cmd, common);
  corpus_cmd->add_option("--seed", seed, "corpus seed")->capture_default_str();
  corpus_cmd->add_option("--count", corpus.count, "number of cases")->capture_default_str();
  corpus_cmd->add_option("--first", corpus.first, "first case number")->capture_default_str();
  corpus_cmd->add_option("--chunk", corpus.chunk, "cases per oracle batch")->capture_default_str();
  corpus_cmd->add_option("--repro-dir", repro_dir, "shrink divergences into scenario folders here");
  corpus_cmd
      ->add_option("--shrink-per-class", corpus.shrink_per_class,
                   "reproducers per divergence class and action")
      ->capture_default_str();
  corpus_cmd->add_option("--shrink-budget", corpus.shrink_budget, "tests per reproducer")
      ->capture_default_str();
  corpus_cmd->add_option("--divergences", divergences, "write every non-agreement as JSON lines");
  corpus_cmd
      ->add_option("--max-oracle-errors", corpus.max_oracle_error_percent,
                   "most oracle errors in percent of the cases")
      ->capture_default_str();
  corpus_cmd->add_flag("--keep-work", corpus.keep_work, "keep the case files");

  KaiCasesOptions kai_cases;
  Common kai_common;
  std::string cases_dir = KAI_DIFF_KAI_CASES_DIR;
  CLI::App* cases_cmd = app.add_subcommand("kai-cases", "the translated KAI unit-test cases");
  AddCommon(*cases_cmd, kai_common);
  cases_cmd->add_option("--cases", cases_dir, "folder of case folders")->capture_default_str();
  cases_cmd->add_flag("--verbose", kai_cases.verbose, "one line per case that does not agree");

  int index = 0;
  std::string out_dir;
  CLI::App* gen_cmd = app.add_subcommand("generate", "write one generated case");
  gen_cmd->add_option("--seed", seed, "corpus seed")->capture_default_str();
  gen_cmd->add_option("--index", index, "case number")->required();
  gen_cmd->add_option("--out", out_dir, "scenario folder to write")->required();

  std::string fake_quotient = KAI_DIFF_QUOTIENT_BINARY, perturbation = "none", fake_scratch;
  CLI::App* fake_cmd = app.add_subcommand("fake-oracle", "a stand-in oracle (batch protocol)");
  fake_cmd->add_option("--quotient", fake_quotient, "the quotient binary")->capture_default_str();
  fake_cmd
      ->add_option("--perturb", perturbation, "none, weights-one, drop-last-eviction, alternate")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "weights-one", "drop-last-eviction", "alternate"}));
  fake_cmd->add_option("--scratch", fake_scratch, "scratch folder");
  fake_cmd->add_subcommand("batch", "read requests from stdin")->required();

  CLI11_PARSE(app, argc, argv);
  try {
    if (*fake_cmd) {
      const fs::path scratch = fake_scratch.empty() ? WorkDir(Common{}) : fs::path(fake_scratch);
      return RunFakeOracle(fake_quotient, perturbation, scratch, std::cin, std::cout);
    }
    if (*gen_cmd) {
      const Case c = GenerateCase(seed, index);
      WriteRepro(out_dir, c, CaseResult{}, ReproInfo{&c, {}});
      std::cout << out_dir << ": " << c.objects.size() << " objects\n";
      return 0;
    }
    Common& c = *corpus_cmd ? common : kai_common;
    const KnownDifferences known = KnownDifferences::Load(c.known);
    const fs::path work = WorkDir(c);
    fs::create_directories(work);
    QuotientEngine quotient(c.quotient, work);
    OracleEngine oracle(OracleCommand(c), work / "oracle.stderr", c.oracle_timeout);
    Evaluator evaluator(quotient, oracle, c.runs, known, c.confirm_runs);
    int status = 0;
    if (*corpus_cmd) {
      corpus.seed = seed;
      corpus.work_dir = work;
      corpus.threshold_percent = c.threshold;
      corpus.generator.disabled = known.ExcludedFeatures();
      if (!repro_dir.empty()) corpus.repro_dir = repro_dir;
      if (!divergences.empty()) corpus.divergences_file = divergences;
      status = RunCorpus(corpus, evaluator, std::cout, std::cerr);
    } else {
      kai_cases.cases_dir = cases_dir;
      kai_cases.repo_root = KAI_DIFF_REPO_ROOT;
      kai_cases.threshold_percent = c.threshold;
      status = RunKaiCases(kai_cases, evaluator, quotient, oracle, std::cout);
    }
    if (c.work_dir.empty() && !corpus.keep_work && status == 0) {
      fs::remove_all(work);
    } else if (status != 0) {
      std::cerr << "kai_diff: case files and the oracle's stderr are in " << work.string() << "\n";
    }
    return status;
  } catch (const std::exception& e) {
    std::cerr << "kai_diff: " << e.what() << "\n";
    return 2;
  }
}

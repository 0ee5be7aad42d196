// kai-oracle runs KAI Scheduler v0.17.0's own scheduling code (imported from its Go module) on the
// Kubernetes objects `quotient schedule` reads, and prints the report of `quotient schedule -o
// json`. It is the reference the differential tests (test/kai-diff) compare Quotient against; see
// README.md.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes of the `quotient schedule` contract (docs/schedule-command.md).
const (
	exitOK       = 0
	exitBadInput = 1
	exitUsage    = 2
)

const usageText = `usage:
  kai-oracle schedule [--config FILE] [--actions LIST] [--cycles N] [--scheduler-name NAME]
                      [--now RFC3339] [--delete-evicted] [-o json] [--verbosity N] FILE|DIR|- ...
  kai-oracle batch [--verbosity N]    (requests on stdin, one JSON object a line)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	switch args[0] {
	case "schedule":
		return runScheduleCommand(args[1:], stdin, stdout, stderr)
	case "batch":
		return runBatchCommand(args[1:], stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	}
	fmt.Fprintf(stderr, "kai-oracle: error: unknown command %q\n%s", args[0], usageText)
	return exitUsage
}

// runScheduleCommand is `kai-oracle schedule`: one case, the report on stdout.
func runScheduleCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseScheduleArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "kai-oracle: error: %v\n", err)
		return exitUsage
	}
	setupLogging(opts.verbosity)
	report, code, err := runCaseRecovering(opts, stdin, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kai-oracle: error: %v\n", err)
		return code
	}
	text, err := marshalReport(report)
	if err != nil {
		fmt.Fprintf(stderr, "kai-oracle: error: %v\n", err)
		return exitBadInput
	}
	if _, err := stdout.Write(text); err != nil {
		return exitBadInput
	}
	return exitOK
}

// runCaseRecovering is runCase with a KAI panic turned into an error (exit 1): Go's own exit
// code for a panic, 2, would read as bad usage.
func runCaseRecovering(o *scheduleOptions, stdin io.Reader, stderr io.Writer) (r *report, code int, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, code, err = nil, exitBadInput, fmt.Errorf("KAI panicked: %v", p)
		}
	}()
	return runCase(o, stdin, stderr)
}

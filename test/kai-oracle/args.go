package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// scheduleOptions are the flags of `schedule`, with quotient's defaults.
type scheduleOptions struct {
	configPath    string
	actions       string // empty: the configuration's (or KAI's default) actions
	actionsSet    bool
	cycles        int
	schedulerName string // empty: the configuration's schedulerName, else "quotient"
	now           *time.Time
	deleteEvicted bool
	// --round-fair-shares: each queue's fair share, as KAI's proportion plugin computed it in
	// float64, is rounded to a fine grid before the actions run (roundFairShares, queues.go).
	roundFairShares bool
	output          string
	verbosity       int
	// --node-pool / --node-pool-label-key: the pool this KAI instance serves ("" the default
	// pool, KAI's own default; nil leaves it so). Its objects are the only ones reported.
	nodePool         *string
	nodePoolLabelKey string
	inputs           []string
}

// parseScheduleArgs reads the arguments of `schedule`. Flags and inputs may come in any order (as
// quotient's CLI allows); `--flag value` and `--flag=value` both work.
func parseScheduleArgs(args []string) (*scheduleOptions, error) {
	o := &scheduleOptions{cycles: 1, output: "json"}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-" || !strings.HasPrefix(arg, "-") {
			o.inputs = append(o.inputs, arg)
			continue
		}
		name, value, hasValue := strings.Cut(arg, "=")
		takeValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s: a value is required", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--config":
			o.configPath, err = takeValue()
		case "--actions":
			o.actions, err = takeValue()
			o.actionsSet = true
		case "--cycles":
			var text string
			if text, err = takeValue(); err == nil {
				o.cycles, err = strconv.Atoi(text)
				if err != nil || o.cycles < 1 {
					err = fmt.Errorf("--cycles: expected a number >= 1, got %q", text)
				}
			}
		case "--scheduler-name":
			o.schedulerName, err = takeValue()
		case "--now":
			var text string
			if text, err = takeValue(); err == nil {
				var t time.Time
				if t, err = time.Parse(time.RFC3339, text); err != nil {
					err = fmt.Errorf("--now: expected an RFC3339 time, got %q", text)
				} else {
					t = t.UTC()
					o.now = &t
				}
			}
		case "-o", "--output":
			if o.output, err = takeValue(); err == nil && o.output != "json" {
				err = fmt.Errorf("-o: only json is supported, got %q", o.output)
			}
		case "--node-pool":
			var text string
			if text, err = takeValue(); err == nil {
				o.nodePool = &text
			}
		case "--node-pool-label-key":
			o.nodePoolLabelKey, err = takeValue()
		case "--delete-evicted":
			o.deleteEvicted, err = boolFlag(name, value, hasValue)
		case "--round-fair-shares":
			o.roundFairShares, err = boolFlag(name, value, hasValue)
		case "--profile", "--reference-search":
			// quotient-only flags that do not change the report: accepted and ignored.
			_, err = boolFlag(name, value, hasValue)
		case "--verbosity", "-v":
			var text string
			if text, err = takeValue(); err == nil {
				if o.verbosity, err = strconv.Atoi(text); err != nil || o.verbosity < 0 {
					err = fmt.Errorf("--verbosity: expected a number >= 0, got %q", text)
				}
			}
		default:
			err = fmt.Errorf("unknown flag %s", name)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(o.inputs) == 0 {
		return nil, fmt.Errorf("no input: give files, directories or -")
	}
	return o, nil
}

func boolFlag(name, value string, hasValue bool) (bool, error) {
	if !hasValue {
		return true, nil
	}
	b, err := strconv.ParseBool(value)
	if err != nil {
		return false, fmt.Errorf("%s: expected true or false, got %q", name, value)
	}
	return b, nil
}

// splitActions splits a comma-separated action list, trimming blanks and dropping empty names.
func splitActions(list string) []string {
	var out []string
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

package main

import (
	"reflect"
	"testing"
)

func TestParseScheduleArgs(t *testing.T) {
	o, err := parseScheduleArgs([]string{"-o", "json", "--now=2026-03-01T12:00:00Z", "a.yaml",
		"--actions", "allocate, reclaim", "--cycles", "3", "--delete-evicted", "-", "--profile"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.inputs, []string{"a.yaml", "-"}) || o.cycles != 3 || !o.deleteEvicted ||
		!o.actionsSet || o.now == nil || o.now.Hour() != 12 || o.roundFairShares {
		t.Errorf("%+v", o)
	}
	if got := splitActions(o.actions); !reflect.DeepEqual(got, []string{"allocate", "reclaim"}) {
		t.Errorf("actions %v", got)
	}
	if o, err := parseScheduleArgs([]string{"a.yaml", "--round-fair-shares"}); err != nil || !o.roundFairShares {
		t.Errorf("--round-fair-shares: %+v %v", o, err)
	}
	for _, bad := range [][]string{
		{"--cycles", "0", "a.yaml"}, {"--now", "noon", "a.yaml"}, {"-o", "yaml", "a.yaml"},
		{"--bogus", "a.yaml"}, {"--config"}, {}, {"--round-fair-shares=maybe", "a.yaml"},
	} {
		if _, err := parseScheduleArgs(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestRoundedShare(t *testing.T) {
	for _, c := range []struct{ share, steps, want float64 }{
		{1.9999999999999998, 1e9, 2},                      // float64's 2 - ε from KAI's over-quota rounds
		{2.1000000000000005, 1e9, 2.1},                    // the nearest float64 to 2.1
		{2.7333333333333334, 1e9, 2.733333333},            // a share that is no multiple of the step
		{127999.9999999, 1e6, 128000},                     // millicores
		{1.099511627776e+12 + 0.3, 1, 1.099511627776e+12}, // bytes
	} {
		if got := roundedShare(c.share, c.steps); got != c.want {
			t.Errorf("roundedShare(%v, %v) = %v, want %v", c.share, c.steps, got, c.want)
		}
	}
}

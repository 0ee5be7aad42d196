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
		!o.actionsSet || o.now == nil || o.now.Hour() != 12 {
		t.Errorf("%+v", o)
	}
	if got := splitActions(o.actions); !reflect.DeepEqual(got, []string{"allocate", "reclaim"}) {
		t.Errorf("actions %v", got)
	}
	for _, bad := range [][]string{
		{"--cycles", "0", "a.yaml"}, {"--now", "noon", "a.yaml"}, {"-o", "yaml", "a.yaml"},
		{"--bogus", "a.yaml"}, {"--config"}, {},
	} {
		if _, err := parseScheduleArgs(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

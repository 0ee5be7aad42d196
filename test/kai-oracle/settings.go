package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kai-scheduler/KAI-scheduler/cmd/scheduler/app"
	kaiv1 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/kai/v1"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/conf"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/conf_util"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/framework"
)

// caseSettings is KAI's configuration and parameters for one case.
type caseSettings struct {
	config        *conf.SchedulerConfiguration
	params        conf.SchedulerParams
	actions       []framework.Action
	schedulerName string
	// roundFairShares: see scheduleOptions.roundFairShares.
	roundFairShares bool
}

// defaultSchedulerParams are the parameters a KAI deployment runs with when no flag is given:
// the defaults of the scheduler's own command line (cmd/scheduler/app/options), turned into
// parameters by the scheduler's own BuildSchedulerParams.
func defaultSchedulerParams() conf.SchedulerParams {
	return *app.BuildSchedulerParams(defaultServerOptions())
}

// quotientExtensions are the top-level keys quotient reads from a configuration beside KAI's
// own (src/kube/scheduler_config_codec.cc); each maps to the KAI parameter of the same meaning.
type quotientExtensions struct {
	SchedulerName               *string `json:"schedulerName"`
	MaxConsolidationPreemptees  *int    `json:"maxConsolidationPreemptees"`
	DefaultStalenessGracePeriod *string `json:"defaultStalenessGracePeriod"`
	StuckInReleasingThreshold   *string `json:"stuckInReleasingThreshold"`
}

// resolveSettings loads the configuration with KAI's own loader (KAI's defaults for what the file
// leaves out, its default configuration without a file), applies --actions, and sets the
// parameters. A configuration that cannot be read is exitBadInput; a bad action name exitUsage.
func resolveSettings(o *scheduleOptions, base conf.SchedulerParams) (*caseSettings, int, error) {
	path, cleanup, err := withActions(o.configPath)
	if err != nil {
		return nil, exitBadInput, fmt.Errorf("--config %s: %v", o.configPath, err)
	}
	defer cleanup()
	config, err := conf_util.ResolveConfigurationFromFile(path)
	if err != nil {
		return nil, exitBadInput, fmt.Errorf("--config %s: %v", o.configPath, err)
	}
	s := &caseSettings{config: config, params: base}
	if o.configPath != "" {
		if code, err := applyExtensions(o.configPath, s); err != nil {
			return nil, code, err
		}
	}
	if o.actionsSet {
		names := splitActions(o.actions)
		for _, name := range names {
			if _, found := framework.GetAction(name); !found {
				return nil, exitUsage, fmt.Errorf("--actions: unknown action %q (known: allocate, "+
					"consolidation, reclaim, preempt, stalegangeviction)", name)
			}
		}
		config.Actions = strings.Join(names, ", ")
	}
	// KAI applies its default search budgets when it loads a configuration; make sure they are
	// there whatever the path (minutes per action and job: a small case is never cut short).
	config.ScenarioSearchBudgets = kaiv1.DefaultScenarioSearchBudgets(config.ScenarioSearchBudgets)
	if strings.TrimSpace(config.Actions) != "" {
		if s.actions, err = conf_util.GetActionsFromConfig(config); err != nil {
			return nil, exitBadInput, fmt.Errorf("actions: %v", err)
		}
	}
	switch {
	case o.schedulerName != "":
		s.schedulerName = o.schedulerName
	case s.schedulerName == "":
		s.schedulerName = "quotient"
	}
	s.params.SchedulerName = s.schedulerName
	// The params hold a pointer: a case must not share it with the next.
	partition := *base.PartitionParams
	if o.nodePoolLabelKey != "" {
		partition.NodePoolLabelKey = o.nodePoolLabelKey
	}
	if o.nodePool != nil {
		partition.NodePoolLabelValue = *o.nodePool
	}
	s.params.PartitionParams = &partition
	return s, exitOK, nil
}

// withActions returns the configuration file to hand to KAI's loader. KAI's loader refuses a
// file without `actions` (it checks them before it fills in its defaults), where quotient takes
// its default actions; such a file is handed over as a copy with KAI's default actions added,
// which --actions may then override as for any file.
func withActions(path string) (string, func(), error) {
	noop := func() {}
	if path == "" {
		return "", noop, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", noop, err
	}
	var doc map[string]interface{}
	if err := yaml.Unmarshal(data, &doc); err != nil || doc == nil {
		return path, noop, nil // KAI's loader gives the error, or takes the empty file
	}
	if actions, ok := doc["actions"].(string); ok && strings.TrimSpace(actions) != "" {
		return path, noop, nil
	}
	defaults, err := conf_util.GetDefaultSchedulerConf()
	if err != nil {
		return "", noop, err
	}
	doc["actions"] = defaults.Actions
	text, err := yaml.Marshal(doc)
	if err != nil {
		return "", noop, err
	}
	f, err := os.CreateTemp("", "kai-oracle-config-*.yaml")
	if err != nil {
		return "", noop, err
	}
	defer f.Close()
	if _, err := f.Write(text); err != nil {
		os.Remove(f.Name())
		return "", noop, err
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

func applyExtensions(path string, s *caseSettings) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return exitBadInput, fmt.Errorf("--config %s: %v", path, err)
	}
	var ext quotientExtensions
	if err := yaml.Unmarshal(data, &ext); err != nil {
		return exitBadInput, fmt.Errorf("--config %s: %v", path, err)
	}
	if ext.SchedulerName != nil && *ext.SchedulerName != "" {
		s.schedulerName = *ext.SchedulerName
	}
	if ext.MaxConsolidationPreemptees != nil {
		s.params.MaxNumberConsolidationPreemptees = *ext.MaxConsolidationPreemptees
	}
	if ext.DefaultStalenessGracePeriod != nil {
		d, err := time.ParseDuration(*ext.DefaultStalenessGracePeriod)
		if err != nil {
			return exitBadInput, fmt.Errorf("--config %s: defaultStalenessGracePeriod: %v", path, err)
		}
		s.params.GlobalDefaultStalenessGracePeriod = d
	}
	if ext.StuckInReleasingThreshold != nil {
		d, err := time.ParseDuration(*ext.StuckInReleasingThreshold)
		if err != nil {
			return exitBadInput, fmt.Errorf("--config %s: stuckInReleasingThreshold: %v", path, err)
		}
		s.params.StuckInReleasingThreshold = d
	}
	return exitOK, nil
}

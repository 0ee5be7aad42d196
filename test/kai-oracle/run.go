package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/kai-scheduler/KAI-scheduler/cmd/scheduler/app/options"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/conf"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/plugins"
)

var (
	initOnce   sync.Once
	baseParams conf.SchedulerParams
	baseServer *options.ServerOption
)

// initKAI registers KAI's actions and plugins (as the scheduler does at start) and reads the
// default parameters, once per process.
func initKAI() {
	initOnce.Do(func() {
		disableWatchListClient()
		actions.InitDefaultActions()
		plugins.InitDefaultPlugins()
		baseParams = defaultSchedulerParams()
		baseServer = defaultServerOptions()
	})
}

// resetGlobals puts KAI's process-wide configuration back to what the scheduler sets at start
// (cmd/scheduler/app's setConfig with default flags), so no case sees another's.
func resetGlobals() {
	c := conf.GetConfig()
	c.ResourceReservationAppLabelValue = baseServer.ResourceReservationAppLabel
	c.ScalingPodAppLabelValue = "scaling-pod"
	c.CPUWorkerNodeLabelKey = baseServer.CPUWorkerNodeLabelKey
	c.GPUWorkerNodeLabelKey = baseServer.GPUWorkerNodeLabelKey
	c.MIGWorkerNodeLabelKey = baseServer.MIGWorkerNodeLabelKey
}

// runCase runs one `schedule` invocation and returns its report; on failure the exit code.
func runCase(o *scheduleOptions, stdin io.Reader, stderr io.Writer) (*report, int, error) {
	initKAI()
	resetGlobals()
	settings, code, err := resolveSettings(o, baseParams)
	if err != nil {
		return nil, code, err
	}
	world, warnings, err := loadInputs(o.inputs, stdin)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "kai-oracle: warning: %s\n", w)
	}
	if err != nil {
		return nil, exitBadInput, err
	}
	for _, w := range normalizeWorld(world) {
		fmt.Fprintf(stderr, "kai-oracle: warning: %s\n", w)
	}
	keepShard(world, settings.params.PartitionParams.NodePoolLabelKey,
		settings.params.PartitionParams.NodePoolLabelValue)
	addImplicitPodGroups(world, settings.schedulerName, settings.params.QueueLabelKey)

	settings.roundFairShares = o.roundFairShares
	st := &runState{schedulerName: settings.schedulerName, queueLabelKey: settings.params.QueueLabelKey,
		boundByRun: map[string]bool{}}
	var cycles []cycleReport
	var last *cycleResult
	for c := 0; c < o.cycles; c++ {
		res, err := runCycle(world, settings, cycleShift(o.now))
		if err != nil {
			return nil, exitBadInput, fmt.Errorf("cycle %d: %v", c, err)
		}
		decisions := res.decisions
		if decisions == nil {
			decisions = []decision{}
		}
		cycles = append(cycles, cycleReport{Index: c, Decisions: decisions})
		for _, d := range decisions {
			switch d.Kind {
			case kindBind:
				st.boundByRun[d.Pod] = true
			case kindEvict:
				delete(st.boundByRun, d.Pod)
			}
		}
		last = res
		if c+1 < o.cycles {
			advanceWorld(world, res, o.deleteEvicted)
		}
	}
	st.world = world
	return buildReport(cycles, last, st), exitOK, nil
}

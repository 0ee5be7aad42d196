package main

import (
	"flag"
	"io"
	"strconv"

	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/util/runtime"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/klog/v2"

	"github.com/kai-scheduler/KAI-scheduler/cmd/scheduler/app/options"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/log"
)

// defaultServerOptions are the scheduler's command-line defaults.
func defaultServerOptions() *options.ServerOption {
	so := options.NewServerOption()
	fs := pflag.NewFlagSet("kai-scheduler", pflag.ContinueOnError)
	so.AddFlags(fs)
	_ = fs.Parse(nil)
	return so
}

// disableWatchListClient turns off client-go's WatchListClient gate before any client is built,
// as KAI's snapshot-tool does when it replays objects on fake clientsets.
func disableWatchListClient() {
	gates, ok := clientfeatures.FeatureGates().(interface {
		Set(clientfeatures.Feature, bool) error
	})
	if !ok {
		return
	}
	if err := gates.Set(clientfeatures.WatchListClient, false); err != nil {
		runtime.HandleError(err)
	}
}

// quietLogger is KAI's scheduler logger at verbosity 0 with nowhere to write: KAI logs even
// errors through it, and at its default level it would also build its verbose messages.
type quietLogger struct{}

var nopSugar = zap.NewNop().Sugar()

func (quietLogger) V(int) log.VerboseLogger              { return log.VerboseLogger{SugaredLogger: nopSugar} }
func (quietLogger) Warningf(string, ...interface{})      {}
func (quietLogger) Errorf(string, ...interface{})        {}
func (quietLogger) Fatalf(t string, args ...interface{}) { nopSugar.Fatalf(t, args...) }
func (quietLogger) SetSessionID(string)                  {}
func (quietLogger) SetAction(string)                     {}
func (quietLogger) RemoveActionLogger()                  {}
func (quietLogger) Sync() error                          { return nil }

// setupLogging silences KAI and the Kubernetes libraries unless a verbosity is asked for; then
// KAI logs on stderr at that verbosity (stdout carries only the report).
func setupLogging(verbosity int) {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	if verbosity == 0 {
		log.InfraLogger = quietLogger{}
		log.StatusUpdaterLogger = quietLogger{}
		_ = klogFlags.Set("logtostderr", "false")
		_ = klogFlags.Set("alsologtostderr", "false")
		_ = klogFlags.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
		runtime.ErrorHandlers = nil
		return
	}
	_ = log.InitLoggers(verbosity, false)
	_ = klogFlags.Set("v", strconv.Itoa(verbosity))
}

// k8s-harness: a real Kubernetes control plane in one process for Quotient's integration tests —
// an embedded etcd, the real kube-apiserver (RBAC, client-certificate and static-token
// authentication) on 127.0.0.1 with Quotient's CRDs installed, a subset of the
// kube-controller-manager controllers (controllers.go) and a node simulator for Nodes annotated
// kwok.x-k8s.io/node=fake: by default kwok's controller (sigs.k8s.io/kwok v0.8.0) in-process
// (kwok.go), with the fake kubelet's reaper for pods of deleted nodes alongside; or, with
// --node-simulator=fake, the harness's own fake kubelet (fakekubelet.go, fakepods.go); or none.
// It prints
//
//	READY <admin kubeconfig> <apiserver port> <control port>
//
// once the API server answers /readyz, the CRDs are Established and the controllers and the
// node simulator are running, and runs until SIGTERM/SIGINT (then exits 0). Restarting with the
// same --dir keeps etcd's data, the PKI and the ports (ports.json).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	ctrlapp "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	dir, crds     string
	apiserverArgs stringList
	controllers   string
	nodeSimulator string        // kwok, fake or none
	kwokHeartbeat time.Duration // 0: kwok's own (600–610 s)
}

const (
	simKwok = "kwok"
	simFake = "fake"
	simNone = "none"
)

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "", "data directory (etcd data, PKI, ports.json, kubeconfigs); a temporary one if empty")
	flag.StringVar(&o.crds, "crds", "", "directories (comma-separated) of CustomResourceDefinition YAML files to install")
	flag.Var(&o.apiserverArgs, "apiserver-arg", "extra kube-apiserver flag, e.g. --apiserver-arg=--watch-cache=false (repeatable; wins over the harness's own)")
	flag.StringVar(&o.controllers, "controllers", defaultControllers, "kube-controller-manager controllers to run (its --controllers syntax); empty: none")
	flag.StringVar(&o.nodeSimulator, "node-simulator", simKwok, "what plays the kubelet of nodes annotated "+
		fakeNodeAnnotation+"="+fakeNodeValue+": kwok (kwok's controller in-process), fake (the harness's own fake kubelet) or none")
	fakeKubelet := "" // --fake-kubelet, deprecated: true = fake, false = none
	flag.BoolFunc("fake-kubelet", "deprecated: --fake-kubelet=true is --node-simulator=fake, --fake-kubelet=false is --node-simulator=none",
		func(v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return err
			}
			fakeKubelet = map[bool]string{true: simFake, false: simNone}[b]
			return nil
		})
	flag.DurationVar(&o.kwokHeartbeat, "kwok-heartbeat", 0, "interval of kwok's node status heartbeat; 0: kwok's (600–610 s; the node Leases, renewed every 10 s, keep nodes Ready)")
	flag.Parse()
	if fakeKubelet != "" {
		simulatorSet := false
		flag.Visit(func(f *flag.Flag) { simulatorSet = simulatorSet || f.Name == "node-simulator" })
		if simulatorSet && o.nodeSimulator != fakeKubelet {
			fmt.Fprintf(os.Stderr, "k8s-harness: --fake-kubelet means --node-simulator=%s, not %s\n", fakeKubelet, o.nodeSimulator)
			os.Exit(2)
		}
		o.nodeSimulator = fakeKubelet
	}
	if o.nodeSimulator != simKwok && o.nodeSimulator != simFake && o.nodeSimulator != simNone {
		fmt.Fprintf(os.Stderr, "k8s-harness: --node-simulator=%s: want kwok, fake or none\n", o.nodeSimulator)
		os.Exit(2)
	}
	if err := run(o); err != nil && !errors.Is(err, context.Canceled) { // Canceled: SIGTERM while starting
		fmt.Fprintln(os.Stderr, "k8s-harness:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A test binary that crashes cannot send SIGTERM; when our parent goes away (we are
	// re-parented), shut down as if it had, so no control plane outlives its test run.
	go func(parent int) {
		for range time.Tick(time.Second) {
			if os.Getppid() != parent {
				fmt.Fprintln(os.Stderr, "k8s-harness: parent process gone, shutting down")
				stop()
				return
			}
		}
	}(os.Getppid())
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "k8s-harness-")
		if err != nil {
			return err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	p, err := newPKI(filepath.Join(dir, "pki"))
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	pt, err := loadOrPickPorts(dir)
	if err != nil {
		return fmt.Errorf("ports: %w", err)
	}
	// Bind the API server and control ports before starting anything, so that a port taken by
	// another process fails fast.
	apiLn, err := listenRetry(pt.APIServer)
	if err != nil {
		return fmt.Errorf("kube-apiserver port: %w", err)
	}
	controlLn, err := listenRetry(pt.Control)
	if err != nil {
		apiLn.Close()
		return fmt.Errorf("control port: %w", err)
	}
	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"), pt)
	if err != nil {
		apiLn.Close()
		controlLn.Close()
		return fmt.Errorf("etcd: %w", err)
	}
	defer etcd.Close()

	// Components run under their own context so that shutdown can stop them before etcd.
	compCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go serveControl(compCtx, controlLn, etcd)
	apiErr := make(chan error, 1)
	go func() { apiErr <- runAPIServer(compCtx, apiLn, etcdURL, p, o.apiserverArgs) }()
	shutdown := func() {
		cancel()
		// The API server drains its requests before etcd goes away; open watches never drain
		// (Go's http.Server waits for idle connections), so do not wait for them long: a test
		// restarting the harness wants a dropped watch, as from a real API server restart.
		select {
		case <-apiErr:
		case <-time.After(3 * time.Second):
		}
	}
	if err := waitReady(ctx, pt.APIServer, p, apiErr); err != nil {
		cancel()
		return err
	}
	admin, err := writeKubeconfigs(dir, pt.APIServer, p)
	if err != nil {
		shutdown()
		return err
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", admin)
	if err != nil {
		shutdown()
		return err
	}
	// client-go's default 5 QPS would make the fake kubelet the bottleneck of larger tests.
	restConfig.QPS, restConfig.Burst = 500, 1000
	if o.crds != "" {
		if err := installCRDs(ctx, restConfig, o.crds); err != nil {
			shutdown()
			return fmt.Errorf("crds: %w", err)
		}
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		shutdown()
		return err
	}
	kcmErr := make(chan error, 1)
	if o.controllers != "" {
		kcm, err := newControllers(compCtx, admin, strings.Split(o.controllers, ","))
		if err != nil {
			shutdown()
			return fmt.Errorf("kube-controller-manager: %w", err)
		}
		go func() { kcmErr <- ctrlapp.Run(compCtx, kcm) }()
		if err := waitControllers(ctx, client, o.controllers, kcmErr); err != nil {
			shutdown()
			return err
		}
	}
	switch o.nodeSimulator {
	case simFake:
		if err := startFakeKubelet(compCtx, client, false); err != nil {
			shutdown()
			return err
		}
	case simKwok:
		if err := startKwok(compCtx, admin, o.kwokHeartbeat); err != nil {
			shutdown()
			return fmt.Errorf("kwok: %w", err)
		}
		// kwok leaves pods of deleted nodes alone; without this, deleting a namespace whose
		// pods were on a deleted fake node would wait for pod GC.
		if err := startFakeKubelet(compCtx, client, true); err != nil {
			shutdown()
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "k8s-harness: ready after %.1fs\n", time.Since(start).Seconds())
	fmt.Printf("READY %s %d %d\n", admin, pt.APIServer, pt.Control)
	select {
	case <-ctx.Done():
		// With watches open, etcd's graceful close also waits for the API server's watch
		// streams; a test restarting the harness should not wait for that. The data is on disk
		// already (bbolt writes through to the page cache, which outlives the process).
		time.AfterFunc(4*time.Second, func() { os.Exit(0) })
		shutdown()
		return nil
	case err := <-apiErr:
		cancel()
		return fmt.Errorf("kube-apiserver stopped: %w", err)
	case err := <-kcmErr:
		shutdown()
		return fmt.Errorf("kube-controller-manager stopped: %w", err)
	}
}

// waitControllers waits until the controllers are evidently running: when the serviceaccount
// controller is among them, until the `default` ServiceAccount of the `default` namespace exists
// (it is created once the controller's informers have synced). Other controllers give no
// outside sign; ctrlapp.Run starts them all together.
func waitControllers(ctx context.Context, client kubernetes.Interface, controllers string, kcmErr <-chan error) error {
	if !strings.Contains(controllers, "serviceaccount-controller") && !strings.Contains(controllers, "*") {
		return nil
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-kcmErr:
			return fmt.Errorf("kube-controller-manager stopped: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if _, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no default ServiceAccount after 60s: the controllers did not start")
}

// k8s-harness: a real Kubernetes control plane in one process for Quotient's integration tests —
// an embedded etcd and the real kube-apiserver (RBAC, client-certificate and static-token
// authentication) on 127.0.0.1, with Quotient's CRDs installed. It prints
//   READY <admin kubeconfig> <port>
// once the API server answers /readyz and the CRDs are Established, and runs until SIGTERM.
// Restarting with the same --dir keeps etcd's data and the PKI.
//
// Not yet here (docs: ../shared/docs/k8s-integration.md §1.7–§1.8): the kube-controller-manager
// controllers and fake nodes; until they land, the admission plugins that depend on them are off.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/server/v3/embed"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	apiapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	apioptions "k8s.io/kubernetes/cmd/kube-apiserver/app/options"
	"sigs.k8s.io/yaml"
)

func main() {
	dir := flag.String("dir", "", "data directory (etcd data, PKI, kubeconfigs); a temporary one if empty")
	crds := flag.String("crds", "", "directory of CustomResourceDefinition YAML files to install")
	flag.Parse()
	if err := run(*dir, *crds); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-harness:", err)
		os.Exit(1)
	}
}

func run(dir, crdDir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dir == "" {
		d, err := os.MkdirTemp("", "k8s-harness-")
		if err != nil {
			return err
		}
		dir = d
	}
	p, err := newPKI(filepath.Join(dir, "pki"))
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer etcd.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // kube-apiserver refuses --secure-port=0
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	apiErr := make(chan error, 1)
	go func() { apiErr <- runAPIServer(ctx, ln, etcdURL, p) }()
	if err := waitReady(ctx, port, p, apiErr); err != nil {
		return err
	}
	admin, err := writeKubeconfigs(dir, port, p)
	if err != nil {
		return err
	}
	if crdDir != "" {
		if err := installCRDs(ctx, admin, crdDir); err != nil {
			return fmt.Errorf("crds: %w", err)
		}
	}
	fmt.Printf("READY %s %d\n", admin, port)
	select {
	case <-ctx.Done():
		return nil
	case err := <-apiErr:
		return fmt.Errorf("kube-apiserver stopped: %w", err)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startEtcd(dir string) (*embed.Etcd, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "harness"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	client, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", clientPort))
	peer, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", peerPort))
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", fmt.Errorf("not ready after 60s")
	}
	return e, client.String(), nil
}

func runAPIServer(ctx context.Context, ln net.Listener, etcdURL string, p *pki) error {
	s := apioptions.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--tls-cert-file=" + p.servingCert,
		"--tls-private-key-file=" + p.servingKey,
		"--client-ca-file=" + p.caCert,
		"--token-auth-file=" + p.tokenFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.serviceAccountKey,
		"--service-account-signing-key-file=" + p.serviceAccountKey,
		"--authorization-mode=RBAC",
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--cert-dir=" + filepath.Join(p.dir, "generated"),
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	s.SecureServing.Listener = ln
	fg := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(s.Logs, fg); err != nil {
		return err
	}
	completed, err := s.Complete(ctx)
	if err != nil {
		return err
	}
	if errs := completed.Validate(); len(errs) > 0 {
		return utilerrors.NewAggregate(errs)
	}
	return apiapp.Run(ctx, completed)
}

func adminTLS(p *pki) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(p.adminCert, p.adminKey)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(p.caCert)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool}, nil
}

func waitReady(ctx context.Context, port int, p *pki, apiErr <-chan error) error {
	cfg, err := adminTLS(p)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-apiErr:
			return fmt.Errorf("kube-apiserver stopped: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/readyz", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after 120s")
}

// Writes admin.kubeconfig (client certificate, system:masters) and scheduler.kubeconfig (bearer
// token, no RBAC grants yet) atomically; returns the admin one's path.
func writeKubeconfigs(dir string, port int, p *pki) (string, error) {
	server := fmt.Sprintf("https://127.0.0.1:%d", port)
	write := func(name string, user *clientcmdapi.AuthInfo) (string, error) {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["harness"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: p.caCert}
		cfg.AuthInfos[name] = user
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "harness", AuthInfo: name}
		cfg.CurrentContext = name
		path := filepath.Join(dir, name+".kubeconfig")
		tmp := path + ".tmp"
		if err := clientcmd.WriteToFile(*cfg, tmp); err != nil {
			return "", err
		}
		return path, os.Rename(tmp, path)
	}
	if _, err := write("scheduler", &clientcmdapi.AuthInfo{Token: p.schedulerToken}); err != nil {
		return "", err
	}
	return write("admin", &clientcmdapi.AuthInfo{ClientCertificate: p.adminCert, ClientKey: p.adminKey})
}

func installCRDs(ctx context.Context, kubeconfig, dir string) error {
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := apiextclient.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(text, &crd); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		crds := client.ApiextensionsV1().CustomResourceDefinitions()
		if _, err := crds.Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
			if _, getErr := crds.Get(ctx, crd.Name, metav1.GetOptions{}); getErr != nil {
				return fmt.Errorf("%s: %w", file, err) // not "already there after a restart"
			}
		}
		if err := waitEstablished(ctx, client, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, client apiextclient.Interface, name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("CRD %s not Established after 30s", name)
}

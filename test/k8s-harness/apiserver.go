package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	apiapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	apioptions "k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// runAPIServer runs the real kube-apiserver on the pre-opened listener until ctx is done. The
// options go through the real flag set as strings, so the harness's command line is that of a
// real kube-apiserver, and extra (later, hence winning) flags come from --apiserver-arg.
func runAPIServer(ctx context.Context, ln net.Listener, etcdURL string, p *pki, extra []string) error {
	s := apioptions.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1", // no default-route lookup
		"--tls-cert-file=" + p.servingCert,
		"--tls-private-key-file=" + p.servingKey,
		"--client-ca-file=" + p.caCert,
		"--token-auth-file=" + p.tokenFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.serviceAccountKey,
		"--service-account-signing-key-file=" + p.serviceAccountKey,
		"--authorization-mode=RBAC",
		// ServiceAccount and TaintNodesByCondition stay on: the serviceaccount controller creates
		// the `default` ServiceAccounts, node-lifecycle removes the not-ready taint once the fake
		// kubelet reports a node Ready.
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--cert-dir=" + filepath.Join(p.dir, "generated"),
	}
	if err := fs.Parse(append(args, extra...)); err != nil {
		return fmt.Errorf("kube-apiserver flags: %w", err)
	}
	// Right after parsing, as kube-apiserver's own command does: applies --feature-gates and
	// --emulated-version from --apiserver-arg before anything reads a gate.
	registry := s.GenericServerRunOptions.ComponentGlobalsRegistry
	if err := registry.Set(); err != nil {
		return err
	}
	s.SecureServing.Listener = ln // kube-apiserver refuses --secure-port=0
	fg := registry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
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

// waitReady polls /readyz with the admin certificate until it answers 200.
func waitReady(ctx context.Context, port int, p *pki, apiErr <-chan error) error {
	cfg, err := adminTLS(p)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
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
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after 120s")
}

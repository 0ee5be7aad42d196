package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

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

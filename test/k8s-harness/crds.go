package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// installCRDs creates every CRD in the comma-separated dirs (keeping one that a previous run on
// the same --dir left) and waits until each is Established, so that clients can use it as soon as
// READY is printed.
func installCRDs(ctx context.Context, restConfig *rest.Config, dirs string) error {
	client, err := apiextclient.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	var files []string
	for _, dir := range strings.Split(dirs, ",") {
		found, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return err
		}
		files = append(files, found...)
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

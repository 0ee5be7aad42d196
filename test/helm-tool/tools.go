//go:build tools

// Package tools pins the Helm release whose command-line tool the integration tests build with
// `go build helm.sh/helm/v3/cmd/helm`. A main package cannot be imported, so this file
// blank-imports the packages that helm.sh/helm/v3/cmd/helm imports from outside itself; that keeps
// the module and every module the command needs in go.mod and go.sum through `go mod tidy`.
package tools

import (
	_ "github.com/Masterminds/semver/v3"
	_ "github.com/gofrs/flock"
	_ "github.com/gosuri/uitable"
	_ "github.com/moby/term"
	_ "github.com/pkg/errors"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/cobra/doc"
	_ "github.com/spf13/pflag"
	_ "golang.org/x/term"
	_ "golang.org/x/text/cases"
	_ "golang.org/x/text/language"
	_ "helm.sh/helm/v3/pkg/action"
	_ "helm.sh/helm/v3/pkg/chart/loader"
	_ "helm.sh/helm/v3/pkg/cli/output"
	_ "helm.sh/helm/v3/pkg/cli/values"
	_ "helm.sh/helm/v3/pkg/downloader"
	_ "helm.sh/helm/v3/pkg/kube/fake"
	_ "helm.sh/helm/v3/pkg/lint/support"
	_ "helm.sh/helm/v3/pkg/plugin/installer"
	_ "helm.sh/helm/v3/pkg/postrender"
	_ "helm.sh/helm/v3/pkg/pusher"
	_ "helm.sh/helm/v3/pkg/repo"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	_ "k8s.io/kubectl/pkg/cmd/get"
	_ "sigs.k8s.io/yaml"
)

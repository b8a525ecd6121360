// helm-server runs `helm template` for fluxlens without a process per release: one process
// serves every render of a review over its stdin and stdout, a JSON line each way.
//
//	request   {"id":1,"chart":"/abs/chart","valuesFile":"/abs/values.json","releaseName":"r",
//	           "namespace":"ns","kubeVersion":"1.34.0","apiVersions":["a/v1"],
//	           "includeCrds":true,"isUpgrade":false,"noHooks":false,
//	           "disableOpenAPIValidation":false,"skipSchemaValidation":false,
//	           "maxOutputBytes":67108864}
//	answers   {"id":1,"yaml":"..."}          what `helm template` prints on stdout
//	          {"id":1,"error":"Error: ..."}  what it prints last on stderr when it fails
//	          {"id":1,"overCap":true}        output longer than maxOutputBytes characters
//	                                         (UTF-16 units, as the tool runner counts them)
//	          {"id":1,"panic":"..."}         helm panicked: run the helm binary instead
//
// A render is `helm template --namespace=NS --values=FILE [--kube-version=V]
// [--api-versions=A]... --include-crds|--skip-crds [--is-upgrade] [--no-hooks]
// [--disable-openapi-validation] [--skip-schema-validation] -- NAME CHART` of the helm release
// go.mod names, whose SDK it links: the same install action in client-only dry-run mode, and
// the same printing of the manifest and hooks. scripts/install-tools stamps the version and
// default Kubernetes version the helm binary is built with, so templates read the same
// .Capabilities. Renders run concurrently, each on its own action configuration; answers come
// in the order renders finish. At the end of its input it answers the renders under way, then
// exits. `--version` prints the sources digest that scripts/install-tools stamps in, helm's
// version and its default Kubernetes version.
//
// It fetches nothing: the chart is a folder on disk, dependencies included, and every HTTP
// request of the process fails.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
)

// sources is stamped by scripts/install-tools: a digest of this folder's Go files, go.mod
// and go.sum, so that an outdated binary is rebuilt.
var sources = "dev"

type request struct {
	ID                       int64    `json:"id"`
	Chart                    string   `json:"chart"`
	ValuesFile               string   `json:"valuesFile"`
	ReleaseName              string   `json:"releaseName"`
	Namespace                string   `json:"namespace"`
	KubeVersion              string   `json:"kubeVersion"`
	APIVersions              []string `json:"apiVersions"`
	IncludeCRDs              bool     `json:"includeCrds"`
	IsUpgrade                bool     `json:"isUpgrade"`
	NoHooks                  bool     `json:"noHooks"`
	DisableOpenAPIValidation bool     `json:"disableOpenAPIValidation"`
	SkipSchemaValidation     bool     `json:"skipSchemaValidation"`
	MaxOutputBytes           int      `json:"maxOutputBytes"`
}

type response struct {
	ID      int64   `json:"id"`
	YAML    *string `json:"yaml,omitempty"`
	Error   string  `json:"error,omitempty"`
	OverCap bool    `json:"overCap,omitempty"`
	Panic   string  `json:"panic,omitempty"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(versionLine())
		return
	}
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: helm-server [--version]; renders requests read from stdin, one JSON line each")
		os.Exit(2)
	}
	http.DefaultTransport = refuseTransport{}
	// Each render appends the API versions it is given to the default set: clipped, every
	// append copies it, and no two concurrent renders write to one array.
	chartutil.DefaultCapabilities.APIVersions = slices.Clip(chartutil.DefaultCapabilities.APIVersions)
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "helm-server:", err)
		os.Exit(1)
	}
}

func versionLine() string {
	caps := chartutil.DefaultCapabilities
	return fmt.Sprintf("helm-server %s (helm %s, kube %s)", sources, caps.HelmVersion.Version,
		caps.KubeVersion.Version)
}

type refuseTransport struct{}

func (refuseTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("helm-server fetches nothing: not fetching %s", r.URL.Redacted())
}

// serve answers each request on in with one line on out, as its render finishes.
func serve(in io.Reader, out io.Writer) error {
	answers := &writer{out: bufio.NewWriterSize(out, 1<<20)}
	answers.enc = json.NewEncoder(answers.out)
	answers.enc.SetEscapeHTML(false)
	var renders sync.WaitGroup
	defer renders.Wait()
	reader := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				answers.send(response{ID: req.ID, Error: "Error: unreadable request: " + jerr.Error()})
			} else {
				renders.Add(1)
				go func() {
					defer renders.Done()
					answers.send(answer(req))
				}()
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writer sends whole lines, one answer at a time.
type writer struct {
	mu  sync.Mutex
	out *bufio.Writer
	enc *json.Encoder
}

func (w *writer) send(res response) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// A reader that went away ends the process (SIGPIPE); nothing else can fail here.
	if err := w.enc.Encode(res); err == nil {
		_ = w.out.Flush()
	}
}

func answer(req request) response {
	res := response{ID: req.ID}
	if !filepath.IsAbs(req.Chart) || !filepath.IsAbs(req.ValuesFile) {
		res.Error = fmt.Sprintf("Error: helm-server renders absolute paths only, not %q and %q", req.Chart, req.ValuesFile)
		return res
	}
	manifest, err := render(req)
	var p panicked
	switch {
	case errors.As(err, &p):
		res.Panic = p.Error()
	case err != nil:
		res.Error = "Error: " + err.Error()
	case req.MaxOutputBytes > 0 && utf16Len(manifest) > req.MaxOutputBytes:
		res.OverCap = true
	default:
		res.YAML = &manifest
	}
	return res
}

type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// debugHint is what `helm template` adds to an error that left a partial release.
const debugHint = "\n\nUse --debug flag to render out invalid YAML"

// render is `helm template` as the command line runs it with the flags fluxlens passes.
func render(req request) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(os.Stderr, "helm-server: rendering %s: panic: %v\n%s", req.Chart, v, debug.Stack())
			err = panicked{value: v}
		}
	}()
	install := action.NewInstall(&action.Configuration{Log: func(string, ...interface{}) {}})
	if req.KubeVersion != "" {
		kube, err := chartutil.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return "", fmt.Errorf("invalid kube version '%s': %s", req.KubeVersion, err)
		}
		install.KubeVersion = kube
	}
	install.DryRunOption = "true"
	install.DryRun = true
	install.Replace = true
	install.ClientOnly = true
	install.APIVersions = chartutil.VersionSet(req.APIVersions)
	install.IncludeCRDs = req.IncludeCRDs
	install.SkipCRDs = !req.IncludeCRDs
	install.IsUpgrade = req.IsUpgrade
	install.DisableHooks = req.NoHooks
	install.DisableOpenAPIValidation = req.DisableOpenAPIValidation
	install.SkipSchemaValidation = req.SkipSchemaValidation
	install.ReleaseName = req.ReleaseName
	install.Namespace = req.Namespace

	if _, err := os.Stat(req.Chart); err != nil {
		return "", fmt.Errorf("path %q not found", req.Chart)
	}
	// Values files that are paths, not URLs, are read from disk whatever the getters.
	vals, err := (&values.Options{ValueFiles: []string{req.ValuesFile}}).MergeValues(getter.Providers{})
	if err != nil {
		return "", err
	}
	chart, err := loader.Load(req.Chart)
	if err != nil {
		return "", err
	}
	switch chart.Metadata.Type {
	case "", "application":
	default:
		return "", fmt.Errorf("%s charts are not installable", chart.Metadata.Type)
	}
	if deps := chart.Metadata.Dependencies; deps != nil {
		if err := action.CheckDependencies(chart, deps); err != nil {
			return "", fmt.Errorf("An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: %w", err)
		}
	}
	rel, err := install.Run(chart, vals)
	if err != nil {
		if rel != nil {
			return "", fmt.Errorf("%w%s", err, debugHint)
		}
		return "", err
	}
	var text strings.Builder
	text.WriteString(strings.TrimSpace(rel.Manifest))
	text.WriteString("\n")
	if !req.NoHooks {
		for _, hook := range rel.Hooks {
			fmt.Fprintf(&text, "---\n# Source: %s\n%s\n", hook.Path, hook.Manifest)
		}
	}
	return text.String(), nil
}

// utf16Len is the length JavaScript gives the text, which the tool runner's cap counts.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// kustomize-server runs `kustomize build` for fluxlens without a process per build: one
// process serves every build of a render over its stdin and stdout, a JSON line each way.
//
//	request   {"id":1,"dir":"/abs/path","enableExecPlugins":false,"maxOutputBytes":67108864}
//	answers   {"id":1,"yaml":"..."}          what `kustomize build` prints on stdout
//	          {"id":1,"error":"Error: ..."}  what it prints on stderr when it fails: the
//	                                         deprecation warnings, then "Error: " and the error
//	          {"id":1,"overCap":true}        output longer than maxOutputBytes characters
//	                                         (UTF-16 units, as the tool runner counts them)
//	          {"id":1,"panic":"..."}         kustomize panicked: run the kustomize binary instead
//
// A build is `kustomize build DIR --load-restrictor LoadRestrictionsNone`, plus
// `--enable-alpha-plugins --enable-exec` when enableExecPlugins is set, of the kustomize
// release go.mod names, whose API and kyaml it links at the versions that release builds with.
// Builds run concurrently; answers come in the order builds finish. At the end of its input
// it answers the builds under way, then exits. `--version` prints the sources digest that
// scripts/install-tools stamps in, and the kustomize versions.
//
// It fetches nothing: every HTTP request of the process fails, and the git that kustomize
// runs to clone a remote base is allowed no transport (GIT_ALLOW_PROTOCOL). fluxlens refuses
// remote bases before building; this makes sure.
//
// kustomize keeps the OpenAPI schema in package state, which one process shares between
// builds. The default schema is parsed before the first request, so concurrent builds only
// read it; a kustomization that names a schema of its own (`openapi:`) is built alone, from
// a reset schema as in a fresh process, and the default is restored after it.
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
	"unicode/utf8"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provenance"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	// Linked for its module only: provenance reads the kustomize version from the build's
	// modules, and `buildMetadata: [managedByLabel]` writes it into every object, as the
	// kustomize binary of that release does.
	_ "sigs.k8s.io/kustomize/kustomize/v5/commands/version"
)

// sources is stamped by scripts/install-tools: a digest of this folder's Go files, go.mod
// and go.sum, so that an outdated binary is rebuilt.
var sources = "dev"

type request struct {
	ID                int64  `json:"id"`
	Dir               string `json:"dir"`
	EnableExecPlugins bool   `json:"enableExecPlugins"`
	MaxOutputBytes    int    `json:"maxOutputBytes"`
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
		fmt.Fprintln(os.Stderr, "usage: kustomize-server [--version]; builds requests read from stdin, one JSON line each")
		os.Exit(2)
	}
	fetchNothing()
	openapi.Schema()
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kustomize-server:", err)
		os.Exit(1)
	}
}

func versionLine() string {
	modules := map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			modules[dep.Path] = dep.Version
		}
	}
	return fmt.Sprintf("kustomize-server %s (kustomize %s, api %s, kyaml %s)", sources,
		provenance.GetProvenance().Semver(), modules["sigs.k8s.io/kustomize/api"],
		modules["sigs.k8s.io/kustomize/kyaml"])
}

func fetchNothing() {
	http.DefaultTransport = refuseTransport{}
	// Set and empty: git allows no protocol at all, file:// and local paths included.
	if err := os.Setenv("GIT_ALLOW_PROTOCOL", ""); err != nil {
		panic(err)
	}
}

type refuseTransport struct{}

func (refuseTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("remote resources are disabled: not fetching %s", r.URL.Redacted())
}

// serve answers each request on in with one line on out, as its build finishes.
func serve(in io.Reader, out io.Writer) error {
	answers := &writer{out: bufio.NewWriterSize(out, 1<<20)}
	answers.enc = json.NewEncoder(answers.out)
	answers.enc.SetEscapeHTML(false)
	var builds sync.WaitGroup
	defer builds.Wait()
	reader := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				answers.send(response{ID: req.ID, Error: "Error: unreadable request: " + jerr.Error()})
			} else {
				builds.Add(1)
				go func() {
					defer builds.Done()
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
	if !filepath.IsAbs(req.Dir) {
		res.Error = fmt.Sprintf("Error: kustomize-server builds absolute paths only, not %q", req.Dir)
		return res
	}
	yml, warnings, err := build(req)
	var p panicked
	switch {
	case errors.As(err, &p):
		res.Panic = p.Error()
	case err != nil:
		res.Error = strings.Join(append(warnings, "Error: "+err.Error()), "\n")
	case req.MaxOutputBytes > 0 && utf16Len(yml) > req.MaxOutputBytes:
		res.OverCap = true
	default:
		text := string(yml)
		res.YAML = &text
	}
	return res
}

// schemaUse is held shared by builds on the default schema, alone by one that names its own.
var schemaUse sync.RWMutex

// build returns the output of the build, or the deprecation warnings kustomize printed and
// the error it failed with.
func build(req request) ([]byte, []string, error) {
	files := &watchedFS{FileSystem: filesys.MakeFsOnDisk(), shared: true}
	schemaUse.RLock()
	yml, err := run(files, req)
	schemaUse.RUnlock()
	if !files.ownSchema {
		return yml, files.warnings, err
	}
	schemaUse.Lock()
	defer schemaUse.Unlock()
	openapi.ResetOpenAPI()
	defer func() {
		openapi.ResetOpenAPI()
		openapi.Schema()
	}()
	files = &watchedFS{FileSystem: filesys.MakeFsOnDisk()}
	yml, err = run(files, req)
	return yml, files.warnings, err
}

// options are what the kustomize command line makes of the flags fluxlens passes.
func options(execPlugins bool) *krusty.Options {
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified
	o.LoadRestrictions = types.LoadRestrictionsNone
	if execPlugins {
		c := types.EnabledPluginConfig(types.BploUseStaticallyLinked)
		c.FnpLoadingOptions = types.FnPluginLoadingOptions{
			EnableExec: true, NetworkName: "bridge", Mounts: []string{}, Env: []string{},
		}
		o.PluginConfig = c
	}
	o.PluginConfig.HelmConfig.Command = "helm"
	o.PluginConfig.HelmConfig.ApiVersions = []string{}
	return o
}

type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

func run(files filesys.FileSystem, req request) (yml []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(os.Stderr, "kustomize-server: building %s: panic: %v\n%s", req.Dir, v, debug.Stack())
			err = panicked{value: v}
		}
	}()
	m, err := krusty.MakeKustomizer(options(req.EnableExecPlugins)).Run(files, req.Dir)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}

var errOwnSchema = errors.New("kustomize-server: a kustomization with its own OpenAPI schema is built alone")

// watchedFS is the disk as kustomize reads it, noting what each kustomization file it loads
// makes kustomize do besides the build: print deprecation warnings, or set the OpenAPI
// schema of the whole process, which a shared build refuses before kustomize can.
type watchedFS struct {
	filesys.FileSystem
	shared    bool
	ownSchema bool
	warnings  []string
}

func (w *watchedFS) ReadFile(path string) ([]byte, error) {
	content, err := w.FileSystem.ReadFile(path)
	names := konfig.RecognizedKustomizationFileNames()
	if err != nil || !slices.Contains(names, filepath.Base(path)) {
		return content, err
	}
	// Parsed as kustomize parses it; what it cannot parse fails the build before either.
	var k types.Kustomization
	if k.Unmarshal(content) != nil {
		return content, nil
	}
	if len(k.OpenAPI) > 0 && w.shared {
		w.ownSchema = true
		return nil, errOwnSchema
	}
	// Two kustomization files in one folder fail the build before kustomize parses either.
	present := 0
	for _, name := range names {
		if w.Exists(filepath.Join(filepath.Dir(path), name)) {
			present++
		}
	}
	if present == 1 {
		w.warnings = append(w.warnings, *k.CheckDeprecatedFields()...)
	}
	return content, nil
}

// utf16Len is the length JavaScript gives the text, which the tool runner's cap counts.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

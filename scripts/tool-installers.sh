# shellcheck shell=bash
# The installers behind scripts/install-tools, one install_<tool> function per tool (the name with
# - as _), sourced by it. Each appends its output to $LOG and returns non-zero on failure, setting
# REASON when it knows better than the log's last line why. They read TOOLS_DIR, BIN_DIR,
# FLUX_LOCAL_VENV and WORK (a scratch directory on the tools' file system) and the versions of
# tool-versions.sh; they leave the probing (is it there, at the pinned version?) to the caller.

REASON=
WORK=
LOG=

# Runs a command with its output appended to the tool's log.
logged() { "$@" >>"$LOG" 2>&1; }

last_log_line() { grep -v '^[[:space:]]*$' "$LOG" 2>/dev/null | tail -n 1 || true; }

GO=
need_go() {
  GO=$(command -v go || true)
  if [[ -z $GO && -x /usr/local/go/bin/go ]]; then
    GO=/usr/local/go/bin/go
  fi
  if [[ -z $GO ]]; then
    REASON="Go is not installed (needed to build it from source; put go on PATH)"
    return 1
  fi
}

# Moves a freshly built binary into BIN_DIR (same file system: the replacement is atomic).
place() {
  chmod 0755 "$2" && mv -f "$2" "$BIN_DIR/$1"
}

# The linker drops debug information (-s -w), so the compiler need not write it: the same
# programs for less work. Measured on kustomize from a cold build cache, two runs each: 65 s of
# CPU and a 240 MB peak instead of 73 s and 300 MB.
NO_DWARF=-gcflags=all=-dwarf=false

# go_built DIR TOOLCHAIN ENV... -- SUBCOMMAND ARGS...: `go SUBCOMMAND -v ARGS` in DIR with ENV.
# A dry run (-n) first downloads every module the build needs and compiles nothing; then the
# build waits for any other on the same toolchain. Two at once would each compile the standard
# library and the modules they share; one after the other, the second reuses them from the build
# cache, and its downloads have overlapped the first one's compiling.
go_built() {
  local dir=$1 lock=$WORK/go-${2:-local}.lock fd status dry
  local -a genv=()
  shift 2
  while [[ $1 != -- ]]; do
    genv+=("$1")
    shift
  done
  shift
  # The dry run prints its build script on stderr: the log keeps its downloads, or its error.
  dry=$(mktemp "$WORK/dry-run.XXXXXX") || return 1
  echo "downloading the modules it needs" >>"$LOG"
  if ! (cd "$dir" && env "${genv[@]}" "$GO" "$1" -n "${@:2}" >/dev/null 2>"$dry"); then
    tail -n 20 "$dry" >>"$LOG"
    return 1
  fi
  { grep '^go: ' "$dry" || true; } >>"$LOG"
  rm -f "$dry"
  if command -v flock >/dev/null; then
    exec {fd}>"$lock"
    if ! flock -n "$fd"; then
      echo "waiting for the other Go build to finish (one at a time)" >>"$LOG"
      flock "$fd"
    fi
  fi
  (cd "$dir" && logged env "${genv[@]}" "$GO" "$1" -v "${@:2}")
  status=$?
  if [[ -n ${fd:-} ]]; then
    exec {fd}>&-
  fi
  return "$status"
}

# go_install NAME PACKAGE@VERSION TOOLCHAIN LDFLAGS
go_install() {
  local name=$1 pkg=$2 toolchain=$3 ldflags=$4 gobin
  local -a genv
  need_go || return 1
  gobin=$(mktemp -d "$WORK/gobin.XXXXXX") || return 1
  genv=(GOBIN="$gobin" CGO_ENABLED=0)
  if [[ -n $toolchain ]]; then
    genv+=(GOTOOLCHAIN="$toolchain")
  fi
  go_built "$WORK" "$toolchain" "${genv[@]}" -- install -trimpath "$NO_DWARF" -ldflags "$ldflags" "$pkg" ||
    return 1
  place "$name" "$gobin/$name"
}

install_kustomize() {
  go_install kustomize "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" "" "-s -w"
}

install_helm() {
  go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "" "-s -w $(helm_stamps)"
}

# The linker flags that make a helm build say the pinned version and render with the default
# Kubernetes version of the official binaries (helm's Makefile sets the same); helm-server's
# build shares them.
helm_stamps() {
  local major=${HELM_KUBE_VERSION%%.*} minor=${HELM_KUBE_VERSION#*.} p=helm.sh/helm/v3
  echo "-X $p/internal/version.version=$HELM_VERSION" \
    "-X $p/pkg/chartutil.k8sVersionMajor=$major -X $p/pkg/chartutil.k8sVersionMinor=$minor" \
    "-X $p/pkg/lint/rules.k8sVersionMajor=$major -X $p/pkg/lint/rules.k8sVersionMinor=$minor"
}

# module_copy MODULE@VERSION DEST: a writable copy of a module from the Go module proxy, for
# modules `go install ...@version` refuses (replace directives, or a module path that is not
# where it is downloaded from).
module_copy() {
  local module=$1 dest=$2 json dir
  json=$(cd "$WORK" && GOTOOLCHAIN=$GO_NEW_TOOLCHAIN "$GO" mod download -json "$module" 2>>"$LOG") ||
    true
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
  if [[ -z $dir || ! -d $dir ]]; then
    REASON=$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
    REASON="go mod download $module failed: ${REASON:-$(last_log_line)} (log: $LOG)"
    return 1
  fi
  cp -R "$dir" "$dest" && chmod -R u+w "$dest"
}

# flux2's go.mod has replace directives, so `go install ...@version` refuses it: build it from a
# writable copy of the module instead.
install_flux() {
  local src=$WORK/flux2
  need_go || return 1
  module_copy "github.com/fluxcd/flux2/v2@$FLUX_VERSION" "$src" || return 1
  # The module lacks the generated install manifests that `//go:embed manifests/*.yaml` in
  # cmd/flux wants; `flux build` does not use them (so `flux install` from this binary would not work).
  mkdir -p "$src/cmd/flux/manifests" || return 1
  if ! compgen -G "$src/cmd/flux/manifests/*.yaml" >/dev/null; then
    : >"$src/cmd/flux/manifests/placeholder.yaml"
  fi
  go_built "$src" "$GO_NEW_TOOLCHAIN" GOTOOLCHAIN="$GO_NEW_TOOLCHAIN" CGO_ENABLED=0 -- build \
    -buildvcs=false -trimpath "$NO_DWARF" -ldflags "-s -w -X main.VERSION=${FLUX_VERSION#v}" \
    -o "$WORK/flux" ./cmd/flux || return 1
  place flux "$WORK/flux"
}

# Sets PYTHON to an interpreter that can run flux-local.
PYTHON=
find_python() {
  local c
  local -a candidates
  if [[ -n ${FLUXLENS_PYTHON:-} ]]; then
    candidates=("$FLUXLENS_PYTHON")
  else
    candidates=(python3 python3.13 python3.12)
    candidates+=("${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*/bin/python3)
  fi
  for c in "${candidates[@]}"; do
    if "$c" -c 'import sys, venv, ensurepip
sys.exit(sys.version_info[:2] < tuple(map(int, sys.argv[1].split("."))))' \
      "$FLUX_LOCAL_MIN_PYTHON" >/dev/null 2>&1; then
      PYTHON=$("$c" -c 'import os, sys; print(os.path.realpath(sys.executable))') && return 0
    fi
  done
  if [[ -n ${FLUXLENS_PYTHON:-} ]]; then
    REASON="FLUXLENS_PYTHON=$FLUXLENS_PYTHON is not a Python >= $FLUX_LOCAL_MIN_PYTHON with venv"
  else
    REASON="no Python >= $FLUX_LOCAL_MIN_PYTHON with venv found (flux-local $FLUX_LOCAL_VERSION needs it; set FLUXLENS_PYTHON=/path/to/python3.12)"
  fi
  return 1
}

# flux-local goes into a virtualenv of its own, linked into BIN_DIR.
install_flux_local() {
  find_python || return 1
  rm -rf "$FLUX_LOCAL_VENV" || return 1
  logged "$PYTHON" -m venv "$FLUX_LOCAL_VENV" || return 1
  logged "$FLUX_LOCAL_VENV/bin/python" -m pip install --no-input --disable-pip-version-check --progress-bar off \
    "flux-local==$FLUX_LOCAL_VERSION" || return 1
  ln -sfn "$FLUX_LOCAL_VENV/bin/flux-local" "$BIN_DIR/flux-local"
}

install_flate() {
  go_install flate "github.com/home-operations/flate/cmd/flate@$FLATE_VERSION" \
    "$GO_NEW_TOOLCHAIN" "-s -w"
}

APT_UPDATED=0
# apt_install PACKAGE: apt-get update runs only when an install fails on stale package lists.
apt_install() {
  local -a sudo=() install
  if ! command -v apt-get >/dev/null; then
    REASON="apt-get not found: install the $1 package with this system's package manager"
    return 1
  fi
  if ((EUID != 0)); then
    if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
      REASON="apt-get install $1 needs root or passwordless sudo"
      return 1
    fi
    sudo=(sudo -n)
  fi
  # Installs run side by side; apt-get's own lock would refuse the second one instead of waiting.
  exec 8>"$WORK/apt.lock" && flock 8
  install=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q
    --no-install-recommends "$1")
  logged "${install[@]}" && return 0
  ((APT_UPDATED)) && return 1
  APT_UPDATED=1
  logged "${sudo[@]}" apt-get update -q && logged "${install[@]}"
}

install_redis_server() { apt_install redis-server; }
install_docker_registry() { apt_install docker-registry; }
# Debian's Chromium, for the HTML report test (driven by playwright-core; no browser download).
install_chromium() { apt_install chromium; }


# Node.js from the npm registry, which carries the official binaries as node-linux-<arch>
# packages: `npm pack` fetches through npm's own registry settings (proxy, CA), and the tarball
# must then match the integrity pinned in tool-versions.sh, not only what the registry says today.
# The tools' node goes into TOOLS_DIR/node, replaced whole, and is linked into BIN_DIR.
install_node() {
  local arch want tarball dir
  case $(uname -m) in
    x86_64 | amd64) arch=x64 want=$NODE_INTEGRITY_LINUX_X64 ;;
    aarch64 | arm64) arch=arm64 want=$NODE_INTEGRITY_LINUX_ARM64 ;;
    *)
      REASON="no pinned Node.js package for $(uname -m) (linux x86_64 and aarch64 only)"
      return 1
      ;;
  esac
  if ! command -v npm >/dev/null; then
    REASON="npm not found: it fetches Node.js $NODE_VERSION from the npm registry"
    return 1
  fi
  (cd "$WORK" && logged npm pack --no-fund --no-audit "node-linux-$arch@$NODE_VERSION") || return 1
  tarball=$WORK/node-linux-$arch-$NODE_VERSION.tgz
  if [[ $(sha512sum "$tarball" | cut -d' ' -f1) != "$(base64 -d <<<"${want#sha512-}" | od -An -v -tx1 | tr -d ' \n')" ]]; then
    REASON="node-linux-$arch-$NODE_VERSION.tgz does not match the pinned $want"
    return 1
  fi
  dir=$WORK/node
  mkdir -p "$dir" && tar -xzf "$tarball" -C "$dir" --strip-components=1 package/bin/node package/LICENSE ||
    return 1
  rm -rf "$TOOLS_DIR/node.old" &&
    { [[ ! -e $TOOLS_DIR/node ]] || mv "$TOOLS_DIR/node" "$TOOLS_DIR/node.old"; } &&
    mv "$dir" "$TOOLS_DIR/node" && rm -rf "$TOOLS_DIR/node.old" || return 1
  ln -sfn ../node/bin/node "$BIN_DIR/node"
}

install_actionlint() {
  go_install actionlint "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" "" "-s -w"
}

# Gitea, the forge the Gitea/Forgejo end-to-end test runs against. Its module declares itself
# gitea.dev while the proxy serves it as code.gitea.io/gitea, so it is built inside a copy.
# Without the bindata tag it reads options/ and templates/ from disk: they go with the binary
# into TOOLS_DIR/gitea (the test points STATIC_ROOT_PATH there), and bin/gitea links to it.
install_gitea() {
  local src=$WORK/gitea-src dest=$TOOLS_DIR/gitea tags='sqlite sqlite_unlock_notify'
  need_go || return 1
  module_copy "code.gitea.io/gitea@$GITEA_VERSION" "$src" || return 1
  go_built "$src" "$GO_NEW_TOOLCHAIN" GOTOOLCHAIN="$GO_NEW_TOOLCHAIN" CGO_ENABLED=0 -- build \
    -buildvcs=false -trimpath "$NO_DWARF" -tags "$tags" \
    -ldflags "-s -w -X main.Version=${GITEA_VERSION#v} -X 'main.Tags=$tags'" -o "$WORK/gitea" . ||
    return 1
  rm -rf "$dest.new" && mkdir -p "$dest.new" || return 1
  cp -R "$src/options" "$src/templates" "$dest.new/" && mv "$WORK/gitea" "$dest.new/gitea" &&
    chmod 0755 "$dest.new/gitea" || return 1
  rm -rf "$dest" && mv "$dest.new" "$dest" && ln -sfn "$dest/gitea" "$BIN_DIR/gitea"
}

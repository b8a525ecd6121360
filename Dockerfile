# syntax=docker/dockerfile:1
# The fluxlens service image (BuildKit; the tools stage downloads release archives):
#   docker build -t fluxlens --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" .
#   --build-arg WITH_FLUX_LOCAL=true   adds the flux-local engine (flux-local and the flux CLI)
#   --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt
#        behind a TLS-intercepting proxy: a whole CA bundle that npm, curl, Go and pip trust
#        while building (curl, Go and pip instead of the image's own); mounted only for the
#        steps that download, never stored in a layer
# scripts/image-smoke builds it with buildah and runs the service from it end to end.
# It runs with a read-only root file system, writing only to its cache volume and /tmp:
#   docker run --read-only --tmpfs /tmp -v fluxlens-cache:/var/cache/fluxlens -p 8080:8080 ... fluxlens
#
# No version of a render tool is written here: scripts/install-image-tools installs the ones
# pinned in scripts/tool-versions.sh, which scripts/install-tools (development, CI) reads too.

# Debian trixie: its python3 (3.13) runs flux-local 7.11, which needs Python >= 3.12.
ARG NODE_IMAGE=node:24-trixie-slim
# Only its Go toolchain is used: it builds kustomize-server and helm-server (tools/), which have no
# release archive, from the sources and go.sum in this repository.
ARG GO_IMAGE=golang:1.26-trixie

# --- go: the toolchain the tools stage builds kustomize-server and helm-server with -------------
FROM ${GO_IMAGE} AS go

# --- build: compile the TypeScript, then drop the development dependencies ----------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would compile before the sources are copied, and no dependency
# needs its install script (msgpackr-extract ships prebuilt binaries; msgpackr falls back to JS).
RUN --mount=type=cache,target=/root/.npm \
    --mount=type=secret,id=ca-certificates \
    if [ -f /run/secrets/ca-certificates ]; then \
      export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; \
    fi \
 && npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json rolldown.config.js ./
COPY schema ./schema
COPY workers ./workers
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# --- tools: kustomize, helm, their servers (and flux-local, the flux CLI) into /opt/fluxlens/tools
FROM ${NODE_IMAGE} AS tools
ARG WITH_FLUX_LOCAL=false
# Debian stable's versions are not pinned: its mirrors keep only the current one.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
COPY scripts/tool-versions.sh scripts/tool-installers.sh scripts/install-tools scripts/install-image-tools \
     /src/scripts/
COPY tools/kustomize-server /src/tools/kustomize-server
COPY tools/helm-server /src/tools/helm-server
# Release archives checked against the SHA-256 in tool-versions.sh (or, where they cannot be
# downloaded, the same versions built through the Go module proxy); kustomize-server and
# helm-server built with Go, their modules pinned by their go.sum; with flux-local, Debian's python3, a virtualenv from PyPI
# and git (its probe imports GitPython). No git otherwise: nothing here needs it, and the runtime
# stage installs its own.
RUN --mount=type=cache,target=/root/.cache/pip \
    --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=secret,id=ca-certificates \
    if [ -f /run/secrets/ca-certificates ]; then \
      export SSL_CERT_FILE=/run/secrets/ca-certificates CURL_CA_BUNDLE=/run/secrets/ca-certificates \
             PIP_CERT=/run/secrets/ca-certificates GIT_SSL_CAINFO=/run/secrets/ca-certificates; \
    fi \
 && if [ "$WITH_FLUX_LOCAL" = true ]; then set -- --with-flux-local; fi \
 && bash /src/scripts/install-image-tools "$@" /opt/fluxlens/tools

# --- runtime -------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG WITH_FLUX_LOCAL=false
# git: fluxlens reads repositories with it. tini: PID 1, forwards SIGTERM to node and reaps the
# tool processes a render leaves behind. python3: what flux-local's virtualenv runs on.
# hadolint ignore=DL3008,SC2046
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git tini \
      $(if [ "$WITH_FLUX_LOCAL" = true ]; then echo python3; fi) \
 && rm -rf /var/lib/apt/lists/*
# The service user owns its cache volume and nothing else.
RUN groupadd --gid 10001 fluxlens \
 && useradd --uid 10001 --gid 10001 --home-dir /var/cache/fluxlens/home --no-create-home \
      --shell /usr/sbin/nologin fluxlens \
 && install -d -o 10001 -g 10001 -m 0750 /var/cache/fluxlens /var/cache/fluxlens/home
COPY --from=tools /opt/fluxlens/tools /opt/fluxlens/tools
# Everything that writes is pointed at the cache volume or /tmp, so the root file system can be
# read-only: fluxlens' cache, git and helm (through HOME and XDG), Python's bytecode (not at all).
ENV FLUXLENS_TOOLS_DIR=/opt/fluxlens/tools \
    FLUXLENS_CACHE_DIR=/var/cache/fluxlens \
    PATH=/opt/fluxlens/tools/bin:$PATH \
    HOME=/var/cache/fluxlens/home \
    XDG_CACHE_HOME=/var/cache/fluxlens/home/.cache \
    XDG_CONFIG_HOME=/var/cache/fluxlens/home/.config \
    XDG_DATA_HOME=/var/cache/fluxlens/home/.local/share \
    HELM_CACHE_HOME=/var/cache/fluxlens/home/.cache/helm \
    HELM_CONFIG_HOME=/var/cache/fluxlens/home/.config/helm \
    HELM_DATA_HOME=/var/cache/fluxlens/home/.local/share/helm \
    TMPDIR=/tmp \
    PYTHONDONTWRITEBYTECODE=1 \
    NODE_ENV=production
WORKDIR /app
# By number, so that Kubernetes' runAsNonRoot can verify it is not root.
USER 10001:10001
# Fail the build here if a copied tool does not run, as the service user, in this stage
# (the servers' pinned versions are the digests of their sources).
RUN --mount=type=bind,source=scripts,target=/mnt/scripts \
    --mount=type=bind,source=tools/kustomize-server,target=/mnt/tools/kustomize-server \
    --mount=type=bind,source=tools/helm-server,target=/mnt/tools/helm-server \
    if [ "$WITH_FLUX_LOCAL" = true ]; then set -- --with-flux-local; fi \
 && bash /mnt/scripts/install-image-tools --check "$@" /opt/fluxlens/tools

# root's files, read-only to the service user: nothing under /app is written at run time.
COPY --chown=0:0 package.json ./
COPY --chown=0:0 bin ./bin
COPY --from=build --chown=0:0 /app/node_modules ./node_modules
COPY --from=build --chown=0:0 /app/dist ./dist

# Charts, git mirrors and (without Redis) results; an anonymous volume keeps `docker run --read-only`
# working when none is mounted. Kubernetes probes /healthz, so there is no HEALTHCHECK.
VOLUME ["/var/cache/fluxlens"]
# 8080: `fluxlens serve`; 9090: a `fluxlens worker`'s /metrics and /healthz.
EXPOSE 8080 9090
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/fluxlens.js"]
CMD ["serve"]

# Last, so that a new version or revision rebuilds no layer above.
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG SOURCE_URL=https://github.com/fluxlens/fluxlens
LABEL org.opencontainers.image.title="fluxlens" \
      org.opencontainers.image.description="Reviews Flux GitOps pull requests as rendered Kubernetes objects" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"

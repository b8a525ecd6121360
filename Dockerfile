# syntax=docker/dockerfile:1
# The fluxlens service image: `docker build -t fluxlens .` (needs internet access and BuildKit).
#
# The render tools (kustomize, helm, flux, flux-local) are installed by scripts/install-tools,
# the same script developers and CI run, in a build stage that has Go and Python; the runtime
# stage gets only the resulting tools directory, plus the Python that flux-local's virtualenv
# was made with. flate (a test oracle, AGPL) and the test services are never installed here.

ARG NODE_IMAGE=node:20-bookworm-slim
ARG GO_IMAGE=golang:1.26-bookworm
# flux-local 7.11.0 needs Python >= 3.12; Debian bookworm's own python3 is 3.11.
ARG PYTHON_VERSION=3.12

FROM ${GO_IMAGE} AS go

FROM python:${PYTHON_VERSION}-slim-bookworm AS python

# --- tools: the pinned render tools, built from source -----------------------------------------
FROM python AS tools
# git: flux-local's GitPython will not import without it (install-tools runs `flux-local --help`).
# Debian stable's versions are not pinned: its mirrors keep only the current one.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH \
    FLUXLENS_TOOLS_DIR=/opt/fluxlens/tools
COPY scripts/install-tools /src/scripts/install-tools
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=cache,target=/root/.cache/pip \
    bash /src/scripts/install-tools kustomize helm flux flux-local \
 && rm -rf /opt/fluxlens/tools/logs /opt/fluxlens/tools/.install.lock

# --- build: compile the TypeScript -------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
COPY schema ./schema
RUN npm run build

# --- deps: production node_modules only --------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts

# --- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG PYTHON_VERSION
# git: fluxlens and flux-local read repositories with it. The libraries are the runtime
# packages of the official python image, which the Python copied below links against.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates git netbase tzdata \
      libbz2-1.0 libdb5.3 libexpat1 libffi8 libgdbm6 liblzma5 libncursesw6 libreadline8 \
      libsqlite3-0 libssl3 libtinfo6 libuuid1 zlib1g \
 && rm -rf /var/lib/apt/lists/*
# flux-local's virtualenv points at /usr/local/bin/python${PYTHON_VERSION}, as in the tools stage.
COPY --from=python /usr/local/bin/python${PYTHON_VERSION} /usr/local/bin/
COPY --from=python /usr/local/lib/libpython3* /usr/local/lib/
COPY --from=python /usr/local/lib/python${PYTHON_VERSION} /usr/local/lib/python${PYTHON_VERSION}
COPY --from=tools /opt/fluxlens/tools /opt/fluxlens/tools
ENV FLUXLENS_TOOLS_DIR=/opt/fluxlens/tools \
    PATH=/opt/fluxlens/tools/bin:$PATH \
    NODE_ENV=production
# Fail the build here if a copied tool does not run in this stage.
RUN --mount=type=bind,from=tools,source=/src/scripts/install-tools,target=/tmp/install-tools \
    ldconfig \
 && bash /tmp/install-tools --check kustomize helm flux flux-local

WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

# The image's `node` user, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
ENTRYPOINT ["node", "/app/bin/fluxlens.js"]

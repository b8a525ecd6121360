/**
 * The container image renders with the same tool versions as development and CI: both read
 * scripts/tool-versions.sh, and the Dockerfile installs through scripts/install-image-tools
 * without a version of its own, so a bump is one edit that cannot leave the image behind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/paths.js';

const read = (path: string): string => readFileSync(join(projectRoot, path), 'utf8');

/** NAME=value lines of a shell file, as `source` would set them. */
function assignments(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z][A-Z0-9_]*)=(\S*)\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) found.set(match[1], match[2]);
  }
  return found;
}

const pinned = assignments(read('scripts/tool-versions.sh'));
const dockerfile = read('Dockerfile');
const versionNames = [...pinned.keys()].filter((name) => name.endsWith('_VERSION'));
const checksumNames = [...pinned.keys()].filter((name) => name.includes('_SHA256_'));

/** The Dockerfile's instructions, continuation lines joined. */
const instructions = (text: string): string[] =>
  text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim());

/** The instructions of one stage, from its FROM to the next. */
function stageOf(name: string): string {
  const start = dockerfile.search(new RegExp(`^FROM \\S+ AS ${name}$`, 'm'));
  if (start < 0) throw new Error(`no stage ${name} in the Dockerfile`);
  const next = dockerfile.slice(start + 1).search(/^FROM /m);
  return next < 0 ? dockerfile.slice(start) : dockerfile.slice(start, start + 1 + next);
}

/** Sources named by the Dockerfile's COPY and bind mounts from the build context. */
function contextSources(text: string): string[] {
  const sources: string[] = [];
  for (const instruction of instructions(text)) {
    const copy = /^COPY\s+(.*)$/.exec(instruction);
    if (copy?.[1] !== undefined && !copy[1].includes('--from=')) {
      const words = copy[1].split(/\s+/).filter((word) => !word.startsWith('--'));
      sources.push(...words.slice(0, -1));
    }
    for (const mount of instruction.matchAll(/--mount=type=bind,([^\s]+)/g)) {
      const source = /(?:^|,)source=([^,]+)/.exec(mount[1] ?? '');
      if (source?.[1] !== undefined && !(mount[1] ?? '').includes('from=')) sources.push(source[1]);
    }
  }
  return sources;
}

describe('the pinned tool versions', () => {
  it('pin kustomize, helm, the flux CLI and flux-local, each with amd64 and arm64 release checksums', () => {
    expect(versionNames).toEqual(
      expect.arrayContaining([
        'KUSTOMIZE_VERSION',
        'HELM_VERSION',
        'FLUX_VERSION',
        'FLUX_LOCAL_VERSION',
      ]),
    );
    for (const tool of ['KUSTOMIZE', 'HELM', 'FLUX']) {
      for (const arch of ['AMD64', 'ARM64']) {
        expect(pinned.get(`${tool}_SHA256_LINUX_${arch}`), `${tool} ${arch}`).toMatch(
          /^[0-9a-f]{64}$/,
        );
      }
    }
  });

  it.each(['scripts/install-tools', 'scripts/install-image-tools', 'scripts/tool-installers.sh'])(
    '%s reads them from tool-versions.sh and sets none itself',
    (script) => {
      const text = read(script);
      const own = [...assignments(text).keys()].filter((name) => pinned.has(name));
      expect(own).toEqual([]);
      if (!script.endsWith('tool-installers.sh')) {
        expect(text).toMatch(/^source "[^\n]*\/tool-versions\.sh"$/m);
      }
    },
  );
});

describe('the Dockerfile', () => {
  it('installs the render tools with scripts/install-image-tools and the shared versions file', () => {
    expect(dockerfile).toContain('COPY scripts/tool-versions.sh');
    const runs = instructions(dockerfile).filter((line) => line.startsWith('RUN '));
    expect(
      runs.filter((run) => run.includes('bash /src/scripts/install-image-tools')),
    ).toHaveLength(1);
  });

  it.each(['kustomize-server', 'helm-server'])(
    'builds %s from its sources with a Go stage, and checks it by their digest',
    (server) => {
      expect(dockerfile).toMatch(/^FROM \$\{GO_IMAGE\} AS go$/m);
      expect(dockerfile).toContain('COPY --from=go /usr/local/go /usr/local/go');
      // Copied into the tools stage, and bound into the runtime stage's check.
      expect(contextSources(dockerfile).filter((s) => s === `tools/${server}`)).toHaveLength(2);
      // The runtime stage's check computes the pinned digest from the same sources.
      const check = instructions(dockerfile).find((line) =>
        line.includes('install-image-tools --check'),
      );
      expect(check).toContain(`source=tools/${server},target=/mnt/tools/${server}`);
      expect(read('scripts/install-image-tools')).toMatch(
        /^BINARIES=\(kustomize helm kustomize-server helm-server\)$/m,
      );
    },
  );

  it("pins helm-server's helm SDK at the helm release tool-versions.sh pins", () => {
    const required = /^require helm\.sh\/helm\/v3 (v\S+)$/m.exec(read('tools/helm-server/go.mod'));
    expect(required?.[1]).toBe(pinned.get('HELM_VERSION'));
  });

  it('writes no tool version or checksum of its own', () => {
    const copies = [...versionNames, ...checksumNames].flatMap((name) => {
      const value = pinned.get(name) ?? '';
      const bare = value.replace(/^v/, '');
      return dockerfile.includes(bare) || dockerfile.includes(name) ? [`${name}=${value}`] : [];
    });
    expect(copies).toEqual([]);
  });

  it('runs as the numeric non-root user 10001 under tini, serving by default', () => {
    expect(dockerfile).toMatch(/^USER 10001:10001$/m);
    expect(dockerfile).toContain(
      'ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/fluxlens.js"]',
    );
    expect(dockerfile).toMatch(/^CMD \["serve"\]$/m);
  });

  it('runs on Node 24 (the LTS line) on Debian trixie, kustomize-server built with Go 1.26', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-trixie-slim$/m);
    expect(dockerfile).toMatch(/^ARG GO_IMAGE=golang:1\.26-trixie$/m);
    expect(dockerfile.match(/^FROM .*$/gm)).toEqual([
      'FROM ${GO_IMAGE} AS go',
      'FROM ${NODE_IMAGE} AS build',
      'FROM ${NODE_IMAGE} AS tools',
      'FROM ${NODE_IMAGE} AS runtime',
    ]);
  });

  it('installs git only where it ships, in the runtime stage', () => {
    const aptInstalls = (stage: string) =>
      instructions(stageOf(stage)).filter((line) => line.includes('apt-get install'));
    expect(aptInstalls('tools').join('\n')).not.toMatch(/\bgit\b/);
    expect(aptInstalls('runtime').join('\n')).toMatch(/ git /);
    // install-image-tools installs git only for flux-local's probe (it imports GitPython).
    const script = read('scripts/install-image-tools');
    const installsGit = script.split('\n').filter((line) => /apt_get .*\bgit\b/.test(line));
    expect(installsGit).toEqual(['  check_git >/dev/null || apt_get git']);
    expect(script).toContain('if ((WITH_FLUX_LOCAL)); then\n  check_git >/dev/null || apt_get git');
  });

  it('hands the CA bundle to the downloading steps as a build secret, never into a layer', () => {
    const secret = '--mount=type=secret,id=ca-certificates';
    const runs = instructions(dockerfile).filter((line) => line.startsWith('RUN '));
    const downloading = runs.filter(
      (run) => run.includes('npm ci') || run.includes('bash /src/scripts/install-image-tools'),
    );
    expect(downloading).toHaveLength(2);
    for (const run of downloading) expect(run).toContain(secret);
    const persistent = instructions(dockerfile).filter((line) => /^(ENV|COPY|ADD|ARG) /.test(line));
    expect(
      persistent.filter((line) => /secrets|ca-certificates\.crt|CA_CERT|SSL_CERT/.test(line)),
    ).toEqual([]);
  });

  it('labels the image as Apache-2.0 with its source, version and revision', () => {
    for (const label of ['source', 'licenses="Apache-2.0"', 'version', 'revision']) {
      expect(dockerfile).toContain(`org.opencontainers.image.${label}`);
    }
  });

  it('reads from the build context only what .dockerignore lets through', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    const sources = contextSources(dockerfile);
    expect(sources).toContain('scripts/install-image-tools');
    const blocked = sources.filter(
      (source) =>
        !allowed.some((entry) => source === entry || source.startsWith(`${entry}/`)) &&
        !allowed.some((entry) => entry.startsWith(`${source}/`)),
    );
    expect(blocked).toEqual([]);
  });
});

/**
 * A real OCI registry for tests: Debian's docker-registry (distribution) on a free
 * 127.0.0.1 port, storing in a temp folder, started and stopped by the test. Push
 * charts with pushChart from chart-repo.ts, and container images with pushImage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';
const READY_TIMEOUT_MS = 15_000;

export interface OciRegistry {
  /** `127.0.0.1:PORT`. */
  host: string;
  /** `oci://127.0.0.1:PORT`. */
  url: string;
  /** The manifest digest the registry holds for `repository:reference`. */
  manifestDigest(repository: string, reference: string): Promise<string>;
  /**
   * Pushes a small image (an OCI image manifest with one layer) as `repository:tag`
   * through the distribution API, and returns its manifest digest.
   */
  pushImage(repository: string, tag: string): Promise<string>;
  stop(): Promise<void>;
}

/** A loopback port nothing listens on (right now). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startOciRegistry(): Promise<OciRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-registry-'));
  const host = `127.0.0.1:${await freePort()}`;
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: error',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'data')}`,
      'http:',
      `  addr: ${host}`,
      '',
    ].join('\n'),
  );
  const child = spawn(REGISTRY_BINARY, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(host, child, () => stderr);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    host,
    url: `oci://${host}`,
    manifestDigest: (repository, reference) => manifestDigest(host, repository, reference),
    pushImage: (repository, tag) => pushImage(host, repository, tag),
    stop,
  };
}

async function waitReady(host: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${stderr()}`);
    const ok = await fetch(`http://${host}/v2/`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`docker-registry did not answer on ${host}: ${stderr()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function manifestDigest(
  host: string,
  repository: string,
  reference: string,
): Promise<string> {
  const res = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, {
    method: 'HEAD',
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  const digest = res.headers.get('docker-content-digest');
  if (!res.ok || !digest) throw new Error(`no manifest for ${repository}:${reference}`);
  return digest;
}

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A monolithic blob upload: POST for a session, PUT the bytes with their digest. */
async function pushBlob(host: string, repository: string, data: Buffer): Promise<string> {
  const digest = sha256(data);
  const start = await fetch(`http://${host}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
  const location = start.headers.get('location');
  if (start.status !== 202 || !location)
    throw new Error(`upload to ${repository}: ${start.status}`);
  const url = new URL(location, `http://${host}`);
  url.searchParams.set('digest', digest);
  const put = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(data),
  });
  if (put.status !== 201) throw new Error(`blob to ${repository}: ${put.status}`);
  return digest;
}

async function pushImage(host: string, repository: string, tag: string): Promise<string> {
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: { tag } },
      rootfs: { type: 'layers', diff_ids: [] },
    }),
  );
  const layer = Buffer.from(`layer of ${repository}:${tag}`);
  const descriptor = async (mediaType: string, data: Buffer) => ({
    mediaType,
    digest: await pushBlob(host, repository, data),
    size: data.byteLength,
  });
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: await descriptor('application/vnd.oci.image.config.v1+json', config),
      layers: [await descriptor('application/vnd.oci.image.layer.v1.tar', layer)],
    }),
  );
  const res = await fetch(`http://${host}/v2/${repository}/manifests/${tag}`, {
    method: 'PUT',
    headers: { 'content-type': OCI_MANIFEST },
    body: new Uint8Array(manifest),
  });
  if (res.status !== 201)
    throw new Error(`manifest ${repository}:${tag}: ${res.status} ${await res.text()}`);
  return sha256(manifest);
}

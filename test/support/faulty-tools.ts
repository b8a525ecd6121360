/**
 * Outside parts that misbehave, for the fault tests: a chart server that takes the
 * connection and never answers, and a tools folder whose kustomize dies of SIGSEGV when
 * it builds a folder named `crashing` (every other build, and every other tool, is the
 * real one).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface SilentServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Connections it took so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Accepts every connection and never sends a byte. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let taken = 0;
  const server = createServer((socket) => {
    taken += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => taken,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface CrashingTools {
  /** Pass as FLUXLENS_TOOLS_DIR, with FLUXLENS_KUSTOMIZE_SERVER=off. */
  dir: string;
  remove(): void;
}

/** The folder the real tools are in: FLUXLENS_TOOLS_DIR's bin, else the default one. */
function realToolsBin(): string {
  return join(process.env['FLUXLENS_TOOLS_DIR'] ?? join(homedir(), '.fluxlens', 'tools'), 'bin');
}

function findTool(name: string): string {
  const dirs = [realToolsBin(), ...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean)];
  const found = dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
  if (found === undefined) throw new Error(`${name} not found: run scripts/install-tools`);
  return found;
}

export function crashingKustomizeTools(): CrashingTools {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-tools-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const real = realToolsBin();
  for (const name of existsSync(real) ? readdirSync(real) : []) {
    if (name !== 'kustomize') symlinkSync(join(real, name), join(bin, name));
  }
  // `kustomize build DIR ...`: the shell kills itself, as a tool that crashes is killed.
  const script = `#!/bin/sh
case "$2" in
  */crashing) kill -SEGV $$ ;;
esac
exec '${findTool('kustomize')}' "$@"
`;
  writeFileSync(join(bin, 'kustomize'), script);
  chmodSync(join(bin, 'kustomize'), 0o755);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

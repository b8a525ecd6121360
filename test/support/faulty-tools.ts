/**
 * Outside parts that misbehave, for the fault tests: a chart server that takes the
 * connection and never answers, and a tools folder whose kustomize dies of SIGSEGV when
 * it builds a folder named `crashing` (every other build, and every other tool, is the
 * real one).
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { wrappedKustomizeTools } from './tools.js';

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

export function crashingKustomizeTools(): CrashingTools {
  // `kustomize build DIR ...`: the shell kills itself, as a tool that crashes is killed.
  const { dir, remove } = wrappedKustomizeTools(
    (kustomize) => `#!/bin/sh
case "$2" in
  */crashing) kill -SEGV $$ ;;
esac
exec '${kustomize}' "$@"
`,
  );
  return { dir, remove };
}

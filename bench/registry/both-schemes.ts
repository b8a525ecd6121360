/**
 * One loopback port that speaks to the registry both in plain HTTP and in TLS: fluxlens
 * pulls from a loopback registry in plain HTTP, flate always in HTTPS (it ignores
 * `spec.insecure`), and both must read the same URL. The first byte of a connection tells
 * them apart (22 opens a TLS handshake); TLS is ended here with a certificate for
 * 127.0.0.1 that the flate runs trust through SSL_CERT_FILE.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

export interface BothSchemes {
  /** `127.0.0.1:PORT`. */
  host: string;
  close(): Promise<void>;
}

const TLS_HANDSHAKE = 22;

export async function serveBothSchemes(
  registry: string,
  certificate: { key: string; cert: string },
): Promise<BothSchemes> {
  const [registryHost, registryPort] = registry.split(':');
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.once('readable', () => {
      const first: Buffer | null = client.read(1);
      if (first === null) return;
      client.unshift(first);
      const upstream = connect(Number(registryPort), registryHost);
      sockets.add(upstream);
      upstream.once('close', () => sockets.delete(upstream));
      const front: Socket =
        first[0] === TLS_HANDSHAKE
          ? new TLSSocket(client, { isServer: true, ...certificate })
          : client;
      const end = () => {
        front.destroy();
        upstream.destroy();
      };
      front.on('error', end);
      upstream.on('error', end);
      front.pipe(upstream).pipe(front);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The fleet's HelmRepository: a plain HTTP chart repository on 127.0.0.1 (an ephemeral
 * port), every chart at every version packaged by the real `helm package` and indexed by
 * `helm repo index`, as a chart museum would serve them. It counts the downloads, so a
 * run can tell whether a tool fetched charts or took them from its cache.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize, sep } from 'node:path';
import { chartFiles } from './charts.js';
import { CHART_VERSIONS, CHARTS } from './fleet-apps.js';

export interface ChartRepository {
  url: string;
  /** Archive downloads (`.tgz`) since the start. */
  downloads(): number;
  close(): Promise<void>;
}

/** Serves `root` (which `packageCharts` fills once the URL is known). */
export async function startChartRepository(root: string): Promise<ChartRepository> {
  let downloads = 0;
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const file = normalize(join(root, pathname));
    if (req.method !== 'GET' || !file.startsWith(root + sep)) {
      res.writeHead(404).end();
      return;
    }
    if (file.endsWith('.tgz')) downloads += 1;
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-length': body.length }).end(body),
      () => res.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    downloads: () => downloads,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** Every chart at every version into `root`, with an index.yaml pointing at `url`. */
export function packageCharts(root: string, url: string, env: NodeJS.ProcessEnv): void {
  const sources = join(root, '..', 'chart-sources');
  for (const chart of CHARTS) {
    for (const version of CHART_VERSIONS) {
      const dir = join(sources, `${chart}-${version}`);
      for (const [path, content] of Object.entries(chartFiles(chart, version))) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
      execFileSync('helm', ['package', dir, '--destination', root], { env, stdio: 'pipe' });
    }
  }
  execFileSync('helm', ['repo', 'index', root, '--url', url], { env, stdio: 'pipe' });
}

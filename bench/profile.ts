/**
 * Where a fluxlens run spent its time, from the V8 CPU profiles `npm run bench --
 * --cpu-prof DIR` writes: self time by function, by file (packages folded), and the time
 * inside each of fluxlens's own functions, callees included (the phases of a render).
 * `node --import tsx bench/profile.ts DIR-or-FILE... [--top N]`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Paths shortened to what they name: `src/...`, a package, or node's own module. */
function where(url: string): string {
  return url
    .replace(/^.*\/(node_modules\/(?:@[^/]+\/)?[^/]+)\/.*$/, '$1')
    .replace(/^.*\/(src\/)/, '$1');
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

function summarise(profile: Profile, tally: Record<'self' | 'file' | 'own', Map<string, number>>) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    total += us;
    add(
      tally.self,
      `${frame.functionName || '(anonymous)'} ${where(frame.url)}:${frame.lineNumber + 1}`,
      us,
    );
    add(tally.file, where(frame.url) || frame.functionName, us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)?.callFrame;
      if (!f?.url.includes('/src/')) continue;
      const key = `${f.functionName || '(anonymous)'} ${where(f.url)}`;
      if (!seen.has(key)) add(tally.own, key, us);
      seen.add(key);
    }
  });
  return total;
}

function files(paths: string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => join(p, f))
      : [p],
  );
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' } },
  allowPositionals: true,
});
const tally = {
  self: new Map<string, number>(),
  file: new Map<string, number>(),
  own: new Map<string, number>(),
};
const profiles = files(positionals);
let total = 0;
for (const file of profiles)
  total += summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, tally);
const top = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top))
    .map(
      ([k, us]) =>
        `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`,
    )
    .join('\n');
process.stdout.write(
  `${profiles.length} profiles, ${(total / 1000).toFixed(0)} ms sampled\n\n` +
    `self time by function\n${top(tally.self)}\n\nself time by file\n${top(tally.file)}\n\n` +
    `fluxlens functions, callees included\n${top(tally.own)}\n`,
);

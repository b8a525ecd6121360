/**
 * Another worker holding a render of a commit, as a process of its own: takes the hold of
 * `key` in the render cache at `dir`, prints `held`, and keeps it until it is killed.
 * `node --import tsx test/support/render-hold-process.ts DIR KEY`
 */
import { RenderCache } from '../../src/render/cache/index.js';

const [dir, key] = process.argv.slice(2);
if (dir === undefined || key === undefined) throw new Error('usage: render-hold-process DIR KEY');
const hold = await new RenderCache(dir, 64 * 1024 * 1024).hold(key, { maxWaitMs: 60_000 });
if (hold === undefined) throw new Error('the hold was not taken');
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);

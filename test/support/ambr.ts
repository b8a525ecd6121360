/** Reads syrupy `.ambr` snapshot files: entry name -> the recorded text. */
import { readFileSync } from 'node:fs';

export function readAmbr(path: string): Map<string, string> {
  const entries = new Map<string, string>();
  const lines = readFileSync(path, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const header = /^# name: (.+)$/.exec(lines[i] ?? '');
    if (!header || lines[i + 1] !== "  '''") continue;
    const body: string[] = [];
    for (i += 2; i < lines.length && lines[i] !== "  '''"; i++)
      body.push((lines[i] ?? '').replace(/^ {2}/, ''));
    entries.set(header[1]!, body.join('\n'));
  }
  return entries;
}

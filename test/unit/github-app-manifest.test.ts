/**
 * The GitHub App that deploy/github-app.yml and docs/github-app.md describe is one GitHub
 * accepts and one fluxlens can work with: every subscribed event has the permission GitHub's
 * webhook reference ties it to, every event is one the server acts on, every API call in
 * src/ is covered by a granted permission, nothing is granted that nothing needs, and the
 * documented form snippet turns the manifest into GitHub's form as it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { projectRoot } from '../support/paths.js';

type Access = 'read' | 'write';

/**
 * GitHub's webhook events reference (docs.github.com/en/webhooks/webhook-events-and-payloads),
 * one row per repository event an App could subscribe to, with the permission its
 * "Availability" note names. The note reads, for example under issue_comment: "To subscribe
 * to this event, a GitHub App must have at least read-level access for the 'Issues'
 * repository permission." `permissions` are manifest keys; more than one means any of them
 * (milestone: "the 'Issues' or 'Pull requests' repository permissions").
 */
const EVENT_PERMISSIONS: readonly { event: string; permissions: string[]; doc: string }[] = [
  { event: 'branch_protection_rule', permissions: ['administration'], doc: 'Administration' },
  { event: 'check_run', permissions: ['checks'], doc: 'Checks' },
  { event: 'check_suite', permissions: ['checks'], doc: 'Checks' },
  { event: 'code_scanning_alert', permissions: ['security_events'], doc: 'Code scanning alerts' },
  { event: 'commit_comment', permissions: ['contents'], doc: 'Contents' },
  { event: 'create', permissions: ['contents'], doc: 'Contents' },
  { event: 'delete', permissions: ['contents'], doc: 'Contents' },
  { event: 'dependabot_alert', permissions: ['vulnerability_alerts'], doc: 'Dependabot alerts' },
  { event: 'deploy_key', permissions: ['deployments'], doc: 'Deployments' },
  { event: 'deployment', permissions: ['deployments'], doc: 'Deployments' },
  { event: 'deployment_status', permissions: ['deployments'], doc: 'Deployments' },
  { event: 'discussion', permissions: ['discussions'], doc: 'Discussions' },
  { event: 'discussion_comment', permissions: ['discussions'], doc: 'Discussions' },
  { event: 'fork', permissions: ['contents'], doc: 'Contents' },
  { event: 'gollum', permissions: ['contents'], doc: 'Contents' },
  { event: 'issue_comment', permissions: ['issues'], doc: 'Issues' },
  { event: 'issues', permissions: ['issues'], doc: 'Issues' },
  { event: 'label', permissions: ['metadata'], doc: 'Metadata' },
  { event: 'merge_group', permissions: ['merge_queues'], doc: 'Merge queues' },
  { event: 'milestone', permissions: ['issues', 'pull_requests'], doc: 'Issues or Pull requests' },
  { event: 'page_build', permissions: ['pages'], doc: 'Pages' },
  { event: 'public', permissions: ['metadata'], doc: 'Metadata' },
  { event: 'pull_request', permissions: ['pull_requests'], doc: 'Pull requests' },
  { event: 'pull_request_review', permissions: ['pull_requests'], doc: 'Pull requests' },
  { event: 'pull_request_review_comment', permissions: ['pull_requests'], doc: 'Pull requests' },
  { event: 'pull_request_review_thread', permissions: ['pull_requests'], doc: 'Pull requests' },
  { event: 'push', permissions: ['contents'], doc: 'Contents' },
  { event: 'release', permissions: ['contents'], doc: 'Contents' },
  { event: 'repository', permissions: ['metadata'], doc: 'Metadata' },
  { event: 'repository_dispatch', permissions: ['contents'], doc: 'Contents' },
  {
    event: 'secret_scanning_alert',
    permissions: ['secret_scanning_alerts'],
    doc: 'Secret scanning alerts',
  },
  { event: 'status', permissions: ['statuses'], doc: 'Commit statuses' },
  { event: 'workflow_job', permissions: ['actions'], doc: 'Actions' },
  { event: 'workflow_run', permissions: ['actions'], doc: 'Actions' },
];

/** Events every App receives without subscribing; a manifest cannot list them. */
const UNSUBSCRIBED_EVENTS = ['installation', 'installation_repositories'];

type CallNeed =
  | { permission: string; access: Access }
  | { by: 'app-jwt' | 'token-mode' | 'installation-token' };

/**
 * What each GitHub API call in src/ needs, from GitHub's REST reference ("Fine-grained
 * access tokens" section of each endpoint). Calls on a pull request's comments go through
 * the issues endpoints, which accept the "Pull requests" permission for pull requests.
 */
const CALL_NEEDS: Record<string, CallNeed> = {
  'POST /repos/{owner}/{repo}/check-runs': { permission: 'checks', access: 'write' },
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': {
    permission: 'checks',
    access: 'write',
  },
  'checks.listForRef': { permission: 'checks', access: 'read' },
  'pulls.get': { permission: 'pull_requests', access: 'read' },
  'pulls.list': { permission: 'pull_requests', access: 'read' },
  'issues.listComments': { permission: 'pull_requests', access: 'read' },
  'issues.createComment': { permission: 'pull_requests', access: 'write' },
  'issues.updateComment': { permission: 'pull_requests', access: 'write' },
  'reactions.createForIssueComment': { permission: 'pull_requests', access: 'write' },
  // git fetch of the base branch and refs/pull/N/head (src/git/).
  'git fetch': { permission: 'contents', access: 'read' },
  // Whether the one who pressed "Acknowledge findings" may push (src/github/may-write.ts).
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': {
    permission: 'metadata',
    access: 'read',
  },
  'GET /app': { by: 'app-jwt' },
  'GET /repos/{owner}/{repo}/installation': { by: 'app-jwt' },
  'apps.listReposAccessibleToInstallation': { by: 'installation-token' },
  // Commit statuses and the token's own login are token mode (and the Action) only.
  'repos.createCommitStatus': { by: 'token-mode' },
  'GET /user': { by: 'token-mode' },
};

const ManifestSchema = z.object({
  hook_attributes: z.object({ url: z.string() }),
  default_permissions: z.record(z.string(), z.enum(['read', 'write'])),
  default_events: z.array(z.string()),
});

const manifestText = readFileSync(join(projectRoot, 'deploy/github-app.yml'), 'utf8');
const manifest = ManifestSchema.parse(parse(manifestText));
const granted = manifest.default_permissions;

const grants = (permission: string, access: Access): boolean =>
  granted[permission] === 'write' || granted[permission] === access;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Octokit calls (`octokit.rest.pulls.get`, `request('GET /app')`) and git fetches in src/. */
function apiCallsInSource(): Set<string> {
  const calls = new Set<string>();
  for (const file of sourceFiles(join(projectRoot, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.rest\.(\w+)\.(\w+)/g)) calls.add(`${m[1]}.${m[2]}`);
    for (const m of text.matchAll(/request\(\s*'([A-Z]+ \/[^']*)'/g)) calls.add(m[1] ?? '');
    if (file.includes('/git/') && /'fetch'/.test(text)) calls.add('git fetch');
  }
  return calls;
}

/** The events `jobForEvent` has a case for. */
function handledEvents(): string[] {
  const text = readFileSync(join(projectRoot, 'src/server/job-for-event.ts'), 'utf8');
  return [...text.matchAll(/case '(\w+)':/g)].map((m) => m[1] ?? '');
}

describe('the App manifest deploy/github-app.yml', () => {
  it.each(manifest.default_events)(
    'grants the permission GitHub requires to subscribe to %s',
    (event) => {
      const row = EVENT_PERMISSIONS.find((r) => r.event === event);
      if (!row) throw new Error(`${event} is not in GitHub's event table of this test`);
      expect(row.permissions.some((p) => grants(p, 'read'))).toBe(true);
    },
  );

  it('subscribes to exactly the events the server acts on, besides those every App gets', () => {
    const handled = handledEvents().filter((e) => !UNSUBSCRIBED_EVENTS.includes(e));
    expect(handled.length).toBeGreaterThan(0);
    expect([...manifest.default_events].sort()).toEqual([...handled].sort());
  });

  it('grants every permission the GitHub API calls in src/ need', () => {
    const calls = apiCallsInSource();
    expect(calls.size).toBeGreaterThan(5);
    const unknown = [...calls].filter((c) => CALL_NEEDS[c] === undefined);
    expect(unknown).toEqual([]);
    const missing = [...calls].filter((c) => {
      const need = CALL_NEEDS[c];
      return need !== undefined && 'permission' in need && !grants(need.permission, need.access);
    });
    expect(missing).toEqual([]);
  });

  it('lists in this test only calls src/ still makes', () => {
    const calls = apiCallsInSource();
    expect(Object.keys(CALL_NEEDS).filter((c) => !calls.has(c))).toEqual([]);
  });

  it('grants nothing beyond what its events and calls need, and metadata', () => {
    const needed = new Map<string, Access>([['metadata', 'read']]);
    const need = (permission: string, access: Access) => {
      if (needed.get(permission) !== 'write') needed.set(permission, access);
    };
    for (const event of manifest.default_events) {
      const row = EVENT_PERMISSIONS.find((r) => r.event === event);
      const [only] = row?.permissions ?? [];
      if (row?.permissions.length === 1 && only) need(only, 'read');
    }
    for (const call of apiCallsInSource()) {
      const n = CALL_NEEDS[call];
      if (n && 'permission' in n) need(n.permission, n.access);
    }
    expect(granted).toEqual(Object.fromEntries(needed));
  });

  it('sends webhooks to the path the server takes them on', () => {
    expect(new URL(manifest.hook_attributes.url).pathname).toBe('/webhooks/github');
  });
});

const guide = readFileSync(join(projectRoot, 'docs/github-app.md'), 'utf8');

/** The first column and the second of the Markdown table whose header starts with `first`. */
function tableRows(first: string): [string, string][] {
  const lines = guide.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first}`));
  if (start < 0) throw new Error(`docs/github-app.md has no table headed "${first}"`);
  const rows: [string, string][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [a = '', b = ''] = line.split('|').slice(1, 3);
    rows.push([a.trim(), b.trim()]);
  }
  return rows;
}

/** GitHub's names of the permissions, as the App settings page shows them. */
const PERMISSION_NAMES: Record<string, string> = {
  Checks: 'checks',
  'Pull requests': 'pull_requests',
  Contents: 'contents',
  Issues: 'issues',
  Metadata: 'metadata',
};

describe('docs/github-app.md, registering by hand', () => {
  it('asks for the permissions the manifest grants, at the same access', () => {
    const table = tableRows('permission (repository)').map(([name, access]) => [
      PERMISSION_NAMES[name] ?? name,
      access === 'read/write' ? 'write' : access,
    ]);
    expect(Object.fromEntries(table)).toEqual(granted);
  });

  it('subscribes to the events the manifest subscribes to', () => {
    const events = tableRows('event').map(([event]) => event.replaceAll('`', ''));
    expect(events.sort()).toEqual([...manifest.default_events].sort());
  });
});

describe('docs/github-app.md, the form snippet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-app-form-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("turns the manifest into GitHub's form with the manifest as its JSON field", () => {
    // The block sits in a numbered list: its lines carry the item's indent.
    const block = /^( *)```sh\n(\1cp deploy\/github-app\.yml[\s\S]*?)\1```/m.exec(guide);
    if (!block) throw new Error('docs/github-app.md has no form snippet');
    const indent = block[1] ?? '';
    const snippet = (block[2] ?? '')
      .split('\n')
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    execFileSync('bash', ['-euc', snippet], {
      cwd: projectRoot,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, TMPDIR: dir },
    });
    const html = readFileSync(join(dir, 'fluxlens-app.html'), 'utf8');
    expect(html).toContain('<form action="https://github.com/settings/apps/new" method="post">');
    const value = /name="manifest" value="([^"]*)"/.exec(html)?.[1] ?? '';
    const json = value.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    expect(JSON.parse(json)).toEqual(parse(manifestText));
  });
});

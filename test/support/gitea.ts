/**
 * A real Gitea for the end-to-end test of the Gitea/Forgejo forge: the binary
 * scripts/install-tools builds (optional tool `gitea`), on SQLite and loopback in a folder of
 * its own, with an admin made by `gitea admin user create` and everything else made through
 * its REST API, as an operator would. Absent, the test skips locally and fails under CI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, sleep } from './service.js';
import { findTool } from './tools.js';

/** The gitea binary, or why it cannot be used; missing is a failure under CI (CI=true). */
export function locateGitea(): { binary: string } | { missing: string; required: boolean } {
  const required = process.env['CI'] === 'true';
  const binary = findTool('gitea');
  if (binary === undefined) {
    return { missing: 'gitea is not installed (run scripts/install-tools gitea)', required };
  }
  return { binary };
}

/** What `gitea --version` says: `gitea version 1.27.3 built with ...`. */
export function giteaVersion(binary: string): string {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout;
  return /version (\S+)/.exec(out)?.[1] ?? 'unknown';
}

export interface GiteaUser {
  login: string;
  password: string;
  token: string;
}

export interface Gitea {
  url: string;
  admin: GiteaUser;
  /** Calls the v1 API as `user`; throws on an answer outside 2xx. */
  api<T = unknown>(user: GiteaUser, method: string, path: string, body?: unknown): Promise<T>;
  /** Makes a user through the admin API, with a token of the given scopes. */
  createUser(login: string, scopes: string[]): Promise<GiteaUser>;
  output(): string;
  stop(): Promise<void>;
}

function appIni(work: string, port: number, staticRoot: string): string {
  return `APP_NAME = fluxlens test forge
RUN_MODE = prod
RUN_USER = ${userInfo().username}
WORK_PATH = ${work}
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = ${port}
DOMAIN = 127.0.0.1
ROOT_URL = http://127.0.0.1:${port}/
STATIC_ROOT_PATH = ${staticRoot}
APP_DATA_PATH = ${join(work, 'data')}
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false

[database]
DB_TYPE = sqlite3
PATH = ${join(work, 'gitea.db')}

[repository]
ROOT = ${join(work, 'repositories')}

[security]
INSTALL_LOCK = true
; fluxlens listens on loopback, which Gitea refuses to deliver webhooks to unless told.
ALLOWED_HOST_LIST = loopback
SECRET_KEY = ${randomBytes(24).toString('hex')}
INTERNAL_TOKEN = ${randomBytes(40).toString('hex')}

[webhook]
DELIVER_TIMEOUT = 20

[service]
DISABLE_REGISTRATION = true

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[queue]
TYPE = channel

[cache]
ADAPTER = memory

[session]
PROVIDER = memory

[mailer]
ENABLED = false

[cron]
ENABLED = false

[log]
MODE = console
LEVEL = Warn
ROOT_PATH = ${join(work, 'log')}
`;
}

/** Starts Gitea in `work`, waits for its API, and makes the admin. */
export async function startGitea(binary: string, work: string): Promise<Gitea> {
  const port = await freePort();
  mkdirSync(work, { recursive: true });
  const config = join(work, 'app.ini');
  // options/ and templates/ are installed beside the binary (bin/gitea links to it).
  writeFileSync(config, appIni(work, port, dirname(realpathSync(binary))));
  const env = { PATH: process.env['PATH'] ?? '', HOME: work, GITEA_WORK_DIR: work };
  const cli = (args: string[]) => {
    const run = spawnSync(binary, ['--config', config, '--work-path', work, ...args], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (run.status !== 0) {
      throw new Error(`gitea ${args.slice(0, 3).join(' ')} failed: ${run.stderr}${run.stdout}`);
    }
    return run.stdout.trim();
  };
  cli(['migrate']);
  const adminPassword = randomBytes(12).toString('hex');
  cli([
    'admin', 'user', 'create', '--username', 'forge-admin', '--password', adminPassword,
    '--email', 'admin@forge.test', '--admin', '--must-change-password=false',
  ]); // prettier-ignore
  const adminToken = cli([
    'admin', 'user', 'generate-access-token', '--username', 'forge-admin',
    '--token-name', 'tests', '--scopes', 'all', '--raw',
  ]); // prettier-ignore
  const child: ChildProcess = spawn(
    binary,
    ['--config', config, '--work-path', work, 'web', '--port', String(port)],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const admin: GiteaUser = { login: 'forge-admin', password: adminPassword, token: adminToken };

  const api = async <T>(user: GiteaUser, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `token ${user.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${url}/api/v1/version`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`gitea did not start:\n${output}`);
    }
    await sleep(200);
  }

  return {
    url,
    admin,
    api,
    output: () => output,
    createUser: async (login, scopes) => {
      const password = randomBytes(12).toString('hex');
      await api(admin, 'POST', '/admin/users', {
        username: login,
        email: `${login}@forge.test`,
        password,
        must_change_password: false,
      });
      const token = cli([
        'admin', 'user', 'generate-access-token', '--username', login,
        '--token-name', 'fluxlens', '--scopes', scopes.join(','), '--raw',
      ]); // prettier-ignore
      return { login, password, token };
    },
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

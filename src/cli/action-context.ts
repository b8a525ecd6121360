/**
 * What `fluxlens action` reads of a GitHub Actions run: the runner's GITHUB_* variables, the
 * action's inputs (action.yml maps each to an INPUT_* variable) and the pull request in the
 * event payload, each parsed at the door. Nothing here names a token's value in an error.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { httpUrl } from '../config.js';
import { errorMessage, SetupError, UsageError } from '../errors.js';
import { FAIL_ON, type FailOn } from '../model/index.js';
import { DEFAULT_ENGINE, EngineName } from '../render/index.js';

/** An empty variable is an unset one: action.yml passes `''` for an input left out. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
/** `must be a, b or c`: what a closed list of words accepts. */
const mustBe = (words: readonly string[]) =>
  `must be ${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`;

const ActionEnv = z.object({
  /** The event that started the run; only pull requests are reviewed. */
  GITHUB_EVENT_NAME: z.string().min(1),
  /** The event's webhook payload, as a JSON file the runner wrote. */
  GITHUB_EVENT_PATH: z.string().min(1),
  /** `owner/repo` of the workflow's repository: where the pull request and its comment live. */
  GITHUB_REPOSITORY: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/repo'),
  /** The workspace, where actions/checkout puts the repository by default. */
  GITHUB_WORKSPACE: z.string().min(1),
  /** The step's Markdown summary file; the report is appended to it. */
  GITHUB_STEP_SUMMARY: optional(z.string().min(1)),
  /** The step's outputs file (`name<<DELIMITER` records). */
  GITHUB_OUTPUT: optional(z.string().min(1)),
  GITHUB_API_URL: optional(httpUrl).transform((u) => u ?? 'https://api.github.com'),
  GITHUB_SERVER_URL: optional(httpUrl).transform((u) => u ?? 'https://github.com'),
  /** With GITHUB_SERVER_URL, the run's page, where the job summary is: the comment links it. */
  GITHUB_RUN_ID: optional(z.string().regex(/^\d+$/, 'must be a number')),
  /** Where the report files go; the runner empties it after each job. */
  RUNNER_TEMP: optional(z.string().min(1)),
  /** The token the comment is written with; without one the comment is skipped. */
  INPUT_TOKEN: optional(z.string()),
  /** `true` when the token is the workflow's own GITHUB_TOKEN, whose login is known. */
  FLUXLENS_WORKFLOW_TOKEN: optional(z.enum(['true', 'false'])).transform((v) => v === 'true'),
  /**
   * The login the token writes as (`<app-slug>[bot]` for an App's token), when GitHub
   * cannot be asked and more than one App's comment carries the marker.
   */
  INPUT_COMMENT_AUTHOR: optional(
    z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/, {
      error: 'must be a GitHub login, such as my-app[bot]',
    }),
  ),
  /** The checkout, when actions/checkout put it in a folder of the workspace (its `path`). */
  INPUT_WORKING_DIRECTORY: optional(z.string()),
  /** Cluster entry folders, one per line (or comma-separated); default: the policy's clusters. */
  INPUT_PATHS: optional(z.string()).transform((v) =>
    (v ?? '')
      .split(/[\n,]/)
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  ),
  /** Overrides the base policy's failOn. */
  INPUT_FAIL_ON: optional(z.enum(FAIL_ON, { error: mustBe(FAIL_ON) })),
  INPUT_ENGINE: optional(
    z.enum(EngineName.options, { error: mustBe(EngineName.options) }),
  ).transform((e) => e ?? DEFAULT_ENGINE),
  /** Whether to upsert the sticky comment. */
  INPUT_COMMENT: optional(z.enum(['true', 'false'], { error: 'must be true or false' })).transform(
    (c) => c !== 'false',
  ),
});

/** The action's inputs as the command reads them, for action.yml's test. */
export const ACTION_INPUT_VARIABLES: readonly string[] = Object.keys(ActionEnv.shape).filter((k) =>
  k.startsWith('INPUT_'),
);

const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a commit SHA');
const FullName = z.object({ full_name: z.string().min(3).max(201) });

/** The fields of a pull_request or pull_request_target payload the action uses. */
const PullRequestPayload = z.object({
  pull_request: z.object({
    number: z.number().int().positive(),
    base: z.object({ sha: Sha }),
    /** `repo` is null when the fork's repository was deleted. */
    head: z.object({ sha: Sha, repo: FullName.nullable() }),
  }),
});

const PULL_REQUEST_EVENTS = ['pull_request', 'pull_request_target'];

export interface ActionContext {
  owner: string;
  repo: string;
  pullNumber: number;
  baseSha: string;
  headSha: string;
  /** The head branch lives in another repository: its GITHUB_TOKEN is read-only. */
  fromFork: boolean;
  /** The checkout: the workspace, or the working-directory input inside it. */
  workspace: string;
  summaryFile: string | undefined;
  outputFile: string | undefined;
  apiUrl: string;
  /** The run's page (job summaries live there), when the run id is known. */
  runUrl: string | undefined;
  tempDir: string | undefined;
  token: string | undefined;
  /**
   * Who the token writes as, when GitHub cannot be asked: the comment-author input, or the
   * workflow's own token's login.
   */
  login: string | undefined;
  paths: string[];
  failOn: FailOn | undefined;
  engine: EngineName;
  comment: boolean;
}

function parseEnv(env: NodeJS.ProcessEnv) {
  const parsed = ActionEnv.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // The variable's name and what is wrong with it; never its value (the token is one).
  throw new SetupError(
    `invalid GitHub Actions environment: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
  );
}

async function readPayload(path: string) {
  const text = await readFile(path, 'utf8').catch((err: unknown) => {
    throw new SetupError(`cannot read the event payload: ${errorMessage(err)}`, { cause: err });
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError('the event payload (GITHUB_EVENT_PATH) is not JSON');
  }
  const parsed = PullRequestPayload.safeParse(json);
  if (parsed.success) return parsed.data.pull_request;
  const issue = parsed.error.issues[0];
  throw new UsageError(
    `the event payload lacks a pull request: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
  );
}

/** The step's outputs file, read alone: where a run that failed before its review says so. */
export function outputFileOf(env: NodeJS.ProcessEnv): string | undefined {
  const parsed = ActionEnv.shape.GITHUB_OUTPUT.safeParse(env['GITHUB_OUTPUT']);
  return parsed.success ? parsed.data : undefined;
}

/** The run's settings and its pull request; refuses runs that are not of a pull request. */
export async function readActionContext(env: NodeJS.ProcessEnv): Promise<ActionContext> {
  const e = parseEnv(env);
  if (!PULL_REQUEST_EVENTS.includes(e.GITHUB_EVENT_NAME)) {
    throw new UsageError(
      `fluxlens action reviews pull requests: run it on pull_request or pull_request_target, not ${e.GITHUB_EVENT_NAME}`,
    );
  }
  const pull = await readPayload(e.GITHUB_EVENT_PATH);
  const [owner = '', repo = ''] = e.GITHUB_REPOSITORY.split('/');
  const headRepo = pull.head.repo?.full_name.toLowerCase();
  return {
    owner,
    repo,
    pullNumber: pull.number,
    baseSha: pull.base.sha,
    headSha: pull.head.sha,
    fromFork: headRepo !== e.GITHUB_REPOSITORY.toLowerCase(),
    workspace: resolve(e.GITHUB_WORKSPACE, e.INPUT_WORKING_DIRECTORY ?? '.'),
    summaryFile: e.GITHUB_STEP_SUMMARY,
    outputFile: e.GITHUB_OUTPUT,
    apiUrl: e.GITHUB_API_URL,
    runUrl:
      e.GITHUB_RUN_ID === undefined
        ? undefined
        : `${e.GITHUB_SERVER_URL}/${e.GITHUB_REPOSITORY}/actions/runs/${e.GITHUB_RUN_ID}`,
    tempDir: e.RUNNER_TEMP,
    token: e.INPUT_TOKEN,
    login:
      e.INPUT_COMMENT_AUTHOR ?? (e.FLUXLENS_WORKFLOW_TOKEN ? 'github-actions[bot]' : undefined),
    paths: e.INPUT_PATHS,
    failOn: e.INPUT_FAIL_ON,
    engine: e.INPUT_ENGINE,
    comment: e.INPUT_COMMENT,
  };
}

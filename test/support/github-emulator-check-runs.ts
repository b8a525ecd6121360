/**
 * The GitHub emulator's check-run routes, with GitHub's limits that fluxlens must respect
 * (65535-character output fields, 50 annotations per request, annotations appended on
 * every update), and GitHub's refusal of check runs to a personal token.
 */
import { checkRunJson } from './github-emulator-json.js';
import type { EmulatedAnnotation, EmulatedCheckRun } from './github-emulator-state.js';
import {
  type Route,
  type RouteContext,
  type RouteResult,
  errorResult,
  paginate,
  record,
  text,
  validationFailed,
} from './github-emulator-routes.js';

const MAX_OUTPUT_FIELD = 65535;
const MAX_ANNOTATIONS = 50;
/** GitHub's limits on requested actions: three per run, and the length of each field. */
const MAX_ACTIONS = 3;
const ACTION_LIMITS = { label: 20, description: 40, identifier: 20 } as const;
const CHECK_STATUSES = ['queued', 'in_progress', 'completed'];

function parseAnnotation(value: unknown): EmulatedAnnotation | undefined {
  const a = record(value);
  const path = text(a?.path);
  const level = text(a?.annotation_level);
  const message = text(a?.message);
  if (!a || !path || !level || !message) return undefined;
  if (typeof a.start_line !== 'number' || typeof a.end_line !== 'number') return undefined;
  const title = text(a.title);
  return {
    path,
    start_line: a.start_line,
    end_line: a.end_line,
    annotation_level: level,
    message,
    ...(title === undefined ? {} : { title }),
  };
}

/** The run's requested actions from a body, or a refusal as GitHub words it. */
function parseActions(value: unknown): EmulatedCheckRun['actions'] | RouteResult {
  const raw = Array.isArray(value) ? value : [];
  if (raw.length > MAX_ACTIONS) {
    return validationFailed('CheckRun', 'actions', `at most ${MAX_ACTIONS} actions`);
  }
  const actions: EmulatedCheckRun['actions'] = [];
  for (const item of raw) {
    const a = record(item);
    const fields = {
      label: text(a?.label),
      description: text(a?.description),
      identifier: text(a?.identifier),
    };
    for (const [field, max] of Object.entries(ACTION_LIMITS)) {
      const v = fields[field as keyof typeof fields];
      if (v === undefined || v === '' || v.length > max) {
        return validationFailed(
          'CheckRun',
          `actions.${field}`,
          `${field} must be 1 to ${max} characters`,
        );
      }
    }
    actions.push({
      label: fields.label ?? '',
      description: fields.description ?? '',
      identifier: fields.identifier ?? '',
    });
  }
  return actions;
}

/** Applies a create or update body to `run`; a RouteResult when GitHub would refuse it. */
function applyCheckRunBody(
  run: EmulatedCheckRun,
  body: Record<string, unknown>,
): RouteResult | undefined {
  const status = text(body.status);
  const conclusion = text(body.conclusion);
  if (status !== undefined && !CHECK_STATUSES.includes(status)) {
    return validationFailed('CheckRun', 'status', `invalid status ${status}`);
  }
  const nextStatus = conclusion !== undefined ? 'completed' : (status ?? run.status);
  if (nextStatus === 'completed' && conclusion === undefined && run.conclusion === null) {
    return validationFailed('CheckRun', 'conclusion', 'conclusion is required when completed');
  }
  const output = record(body.output);
  let annotations: EmulatedAnnotation[] = [];
  if (output) {
    const title = text(output.title);
    const summary = text(output.summary);
    const outText = text(output.text);
    if (title === undefined || summary === undefined) {
      return validationFailed('CheckRun', 'output', 'output needs a title and a summary');
    }
    for (const [field, value] of [
      ['title', title],
      ['summary', summary],
      ['text', outText],
    ] as const) {
      if (value !== undefined && value.length > MAX_OUTPUT_FIELD) {
        return validationFailed(
          'CheckRun',
          `output.${field}`,
          `${field} is too long (maximum is ${MAX_OUTPUT_FIELD} characters)`,
        );
      }
    }
    const raw = Array.isArray(output.annotations) ? output.annotations : [];
    if (raw.length > MAX_ANNOTATIONS) {
      return validationFailed(
        'CheckRun',
        'output.annotations',
        `at most ${MAX_ANNOTATIONS} annotations per request`,
      );
    }
    const parsed = raw.map(parseAnnotation);
    if (parsed.some((a) => a === undefined)) {
      return validationFailed('CheckRun', 'output.annotations', 'invalid annotation');
    }
    annotations = parsed.filter((a) => a !== undefined);
    run.output = { title, summary, text: outText ?? null };
  }
  if (body.actions !== undefined) {
    const actions = parseActions(body.actions);
    if (!Array.isArray(actions)) return actions;
    run.actions = actions;
  }
  run.status = nextStatus;
  if (conclusion !== undefined) run.conclusion = conclusion;
  if (body.details_url !== undefined) run.details_url = text(body.details_url) ?? null;
  if (body.external_id !== undefined) run.external_id = text(body.external_id) ?? null;
  run.annotations.push(...annotations);
  run.writes += 1;
  return undefined;
}

function findCheckRun(ctx: RouteContext): EmulatedCheckRun | undefined {
  return ctx.state.checkRuns.find(
    (r) =>
      r.id === Number(ctx.params.id) && r.owner === ctx.params.owner && r.repo === ctx.params.repo,
  );
}

const APPS_ONLY = errorResult(403, 'Resource not accessible by personal access token');

export const checkRunRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/repos/:owner/:repo/check-runs',
    auth: 'repo',
    handle: (ctx) => {
      if (ctx.caller.kind !== 'installation' || !ctx.app) return APPS_ONLY;
      const name = text(ctx.body.name);
      const headSha = text(ctx.body.head_sha);
      if (!name || !headSha)
        return validationFailed('CheckRun', 'name', 'name and head_sha are required');
      const run: EmulatedCheckRun = {
        id: ctx.nextId(),
        owner: ctx.params.owner ?? '',
        repo: ctx.params.repo ?? '',
        name,
        head_sha: headSha,
        status: 'queued',
        conclusion: null,
        app_id: ctx.app.id,
        details_url: null,
        external_id: null,
        output: { title: null, summary: null, text: null },
        annotations: [],
        actions: [],
        writes: 0,
      };
      const refused = applyCheckRunBody(run, ctx.body);
      if (refused) return refused;
      ctx.state.checkRuns.push(run);
      return { status: 201, body: checkRunJson(run, ctx.app.slug, ctx.apiUrl) };
    },
  },
  {
    method: 'PATCH',
    pattern: '/repos/:owner/:repo/check-runs/:id',
    auth: 'repo',
    handle: (ctx) => {
      if (ctx.caller.kind !== 'installation' || !ctx.app) return APPS_ONLY;
      const run = findCheckRun(ctx);
      if (!run) return errorResult(404, 'Not Found');
      // GitHub validates the whole request before changing anything.
      const draft = structuredClone(run);
      const refused = applyCheckRunBody(draft, ctx.body);
      if (refused) return refused;
      Object.assign(run, draft);
      return { status: 200, body: checkRunJson(run, ctx.app.slug, ctx.apiUrl) };
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/commits/:sha/check-runs',
    auth: 'repo',
    handle: (ctx) => {
      const { owner, repo, sha } = ctx.params;
      let runs = ctx.state.checkRuns
        .filter((r) => r.owner === owner && r.repo === repo && r.head_sha === sha)
        .filter((r) => ctx.query.check_name === undefined || r.name === ctx.query.check_name)
        .filter((r) => ctx.query.app_id === undefined || r.app_id === Number(ctx.query.app_id))
        .sort((a, b) => b.id - a.id);
      if ((ctx.query.filter ?? 'latest') === 'latest') {
        runs = runs.filter(
          (r, i) => runs.findIndex((o) => o.name === r.name && o.app_id === r.app_id) === i,
        );
      }
      const slug = ctx.app?.slug ?? 'app';
      const { page, headers } = paginate(runs, ctx);
      return {
        status: 200,
        body: {
          total_count: runs.length,
          check_runs: page.map((r) => checkRunJson(r, slug, ctx.apiUrl)),
        },
        headers,
      };
    },
  },
];

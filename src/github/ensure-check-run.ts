/**
 * Our check run (of the name the caller gives) on a head commit, as an upsert. GitHub appends
 * annotations on every update and cannot remove them, so a completed run is never
 * rewritten: the same result leaves it alone, a different one gets a new run (GitHub
 * shows the newest run of a name).
 */
import { CheckRunList, CheckRun } from './schemas.js';
import type { CheckRunAnnotation, CheckRunOutput } from '../model/index.js';
import type { CheckRunInput, CheckRunOutcome, WriterContext } from './types.js';

/** GitHub accepts at most this many annotations per create or update request. */
const ANNOTATIONS_PER_REQUEST = 50;

function batchesOf(annotations: readonly CheckRunAnnotation[]): CheckRunAnnotation[][] {
  const batches: CheckRunAnnotation[][] = [];
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
    batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  }
  return batches;
}

function outputWith(output: CheckRunOutput, annotations: CheckRunAnnotation[]) {
  return {
    title: output.title,
    summary: output.summary,
    ...(output.text === undefined ? {} : { text: output.text }),
    ...(annotations.length === 0 ? {} : { annotations }),
  };
}

/** Whether `run` already shows what `input` asks for. */
function alreadyShows(run: CheckRun, input: CheckRunInput): boolean {
  if (run.status !== input.status) return false;
  if (input.status === 'completed' && run.conclusion !== input.conclusion) return false;
  if (input.detailsUrl !== undefined && run.details_url !== input.detailsUrl) return false;
  if (input.output === undefined) return true;
  const shown = run.output;
  return (
    shown?.title === input.output.title &&
    shown.summary === input.output.summary &&
    (shown.text ?? undefined) === input.output.text &&
    (shown.annotations_count ?? 0) === (input.output.annotations?.length ?? 0)
  );
}

async function latestRun(
  ctx: WriterContext,
  input: CheckRunInput,
  name: string,
): Promise<CheckRun | undefined> {
  const { data } = await ctx.octokit.rest.checks.listForRef({
    owner: input.owner,
    repo: input.repo,
    ref: input.headSha,
    check_name: name,
    filter: 'latest',
    per_page: ctx.pageSize,
    ...(ctx.appId === undefined ? {} : { app_id: ctx.appId }),
  });
  const runs = CheckRunList.parse(data).check_runs;
  return runs.find((run) => ctx.appId === undefined || run.app?.id === ctx.appId);
}

function requestBody(input: CheckRunInput, annotations: CheckRunAnnotation[]) {
  const now = new Date().toISOString();
  return {
    status: input.status,
    ...(input.status === 'completed'
      ? {
          conclusion: input.conclusion,
          completed_at: now,
          ...(input.actions === undefined ? {} : { actions: input.actions.map((a) => ({ ...a })) }),
        }
      : { started_at: now }),
    ...(input.output === undefined ? {} : { output: outputWith(input.output, annotations) }),
    ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    ...(input.externalId === undefined ? {} : { external_id: input.externalId }),
  };
}

/** GitHub takes annotations only inside an output; the same title and summary keep it. */
async function appendAnnotations(
  ctx: WriterContext,
  run: { owner: string; repo: string; id: number },
  output: CheckRunOutput,
  batches: CheckRunAnnotation[][],
): Promise<void> {
  for (const batch of batches) {
    await ctx.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
      owner: run.owner,
      repo: run.repo,
      check_run_id: run.id,
      output: outputWith(output, batch),
    });
  }
}

export async function ensureCheckRun(
  ctx: WriterContext,
  input: CheckRunInput,
): Promise<CheckRunOutcome> {
  const { owner, repo } = input;
  const { name } = input;
  const existing = input.checkRunId === undefined ? await latestRun(ctx, input, name) : undefined;
  if (existing && alreadyShows(existing, input)) {
    return { id: existing.id, action: 'unchanged' };
  }
  if (existing?.status === 'completed' && input.status !== 'completed' && input.keepCompleted) {
    return { id: existing.id, action: 'unchanged' };
  }
  const [first = [], ...rest] = batchesOf(input.output?.annotations ?? []);
  const body = requestBody(input, first);
  const updateId =
    input.checkRunId ?? (existing && existing.status !== 'completed' ? existing.id : undefined);
  let id: number;
  if (updateId === undefined) {
    const created = await ctx.octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      owner,
      repo,
      name,
      head_sha: input.headSha,
      ...body,
    });
    id = CheckRun.parse(created.data).id;
  } else {
    await ctx.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
      owner,
      repo,
      check_run_id: updateId,
      ...body,
    });
    id = updateId;
  }
  if (input.output) await appendAnnotations(ctx, { owner, repo, id }, input.output, rest);
  return { id, action: updateId === undefined ? 'created' : 'updated' };
}

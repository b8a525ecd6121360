/**
 * The queue's behaviour as one table of tests, run against every adapter (inline in
 * test/unit/queue/inline.test.ts, BullMQ on a real Redis in
 * test/integration/queue-redis.test.ts), so both keep the same semantics. Renders that
 * name only the pull request have a table of their own, pull-only-semantics.ts.
 */
import { describe, expect, it } from 'vitest';
import { JobInterruptedError, PermanentJobError, type PullRef } from '../../../src/queue/index.js';
import { describePullOnlySemantics } from './pull-only-semantics.js';
import {
  type QueueAdapter,
  gatedProcessor,
  pullOnlyJob,
  reviewJob,
  scriptedProcessor,
  settle,
  sha,
  waitFor,
  waitForStatus,
  useHarness,
} from './queue-test-kit.js';

export function describeQueueSemantics(adapter: QueueAdapter): void {
  describe(`${adapter.name} queue semantics`, () => {
    const open = useHarness(adapter);

    it('runs an enqueued job and reports it completed', async () => {
      const { queue, startWorker } = await open();
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      const outcome = await queue.enqueue(reviewJob());
      expect(outcome.status).toBe('queued');
      const jobId = outcome.jobId ?? '';
      const state = await waitForStatus(queue, jobId, 'completed');
      expect(state).toMatchObject({ jobId, headSha: sha('a'), attempts: 1 });
      expect(state.pull).toEqual(reviewJob().pull);
      expect(calls).toEqual([{ job: reviewJob(), attempt: 1 }]);
    });

    it('ignores a head that is already queued', async () => {
      const { queue } = await open();
      const first = await queue.enqueue(reviewJob());
      const again = await queue.enqueue(reviewJob({ reason: 'opened', deliveryId: 'other' }));
      expect(again).toEqual({ status: 'duplicate', jobId: first.jobId });
      expect((await queue.depth()).waiting).toBe(1);
    });

    it('ignores a head that was already reviewed, unless the re-render is explicit', async () => {
      const { queue, startWorker } = await open();
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      const first = await queue.enqueue(reviewJob());
      await waitForStatus(queue, first.jobId ?? '', 'completed');
      expect((await queue.enqueue(reviewJob({ reason: 'resync' }))).status).toBe('duplicate');
      const explicit = await queue.enqueue(reviewJob({ reason: 'api', explicit: true }));
      expect(explicit.status).toBe('queued');
      await waitForStatus(queue, explicit.jobId ?? '', 'completed');
      expect(calls.map((call) => call.job.reason)).toEqual(['synchronize', 'api']);
    });

    it('accepts one job when two servers enqueue the same head at once', async () => {
      const { queue, secondQueue } = await open();
      const other = await secondQueue();
      const outcomes = await Promise.all(
        [queue, other, queue, other].map((q) => q.enqueue(reviewJob())),
      );
      expect(outcomes.filter((o) => o.status === 'queued')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'duplicate')).toHaveLength(3);
    });

    it('replaces the waiting job when a newer head arrives', async () => {
      const { queue, startWorker } = await open();
      const older = await queue.enqueue(reviewJob({ headSha: sha('a') }));
      const newer = await queue.enqueue(reviewJob({ headSha: sha('b') }));
      expect(newer.status).toBe('replaced');
      expect(await queue.state(older.jobId ?? '')).toMatchObject({
        status: 'cancelled',
        reason: `replaced by job ${newer.jobId}`,
      });
      expect((await queue.depth()).waiting).toBe(1);
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      await waitForStatus(queue, newer.jobId ?? '', 'completed');
      expect(calls.map((call) => call.job.headSha)).toEqual([sha('b')]);
    });

    it('cancels the running job for an older head and runs the newer one', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor);
      const older = await queue.enqueue(reviewJob({ headSha: sha('a') }));
      const first = await waitFor(() => runs[0], 'the first run');
      expect(await first.ctx.isCurrent()).toBe(true);
      const newer = await queue.enqueue(reviewJob({ headSha: sha('b') }));
      await waitFor(() => first.ctx.signal.aborted, 'the older run to be aborted');
      expect(first.ctx.signal.reason).toBeInstanceOf(JobInterruptedError);
      expect(await first.ctx.isCurrent()).toBe(false);
      const second = await waitFor(() => runs[1], 'the newer run');
      expect(second.job.headSha).toBe(sha('b'));
      expect(await second.ctx.isCurrent()).toBe(true);
      second.finish();
      await waitForStatus(queue, newer.jobId ?? '', 'completed');
      const cancelled = await queue.state(older.jobId ?? '');
      expect(cancelled).toMatchObject({ status: 'cancelled' });
      expect(cancelled?.reason).toContain('superseded');
      expect(runs).toHaveLength(2);
    });

    it('lets the running job for the same head finish before an explicit re-render runs', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor, { concurrency: 2 });
      const reviewed = await queue.enqueue(reviewJob());
      const first = await waitFor(() => runs[0], 'the first run');
      const rerender = await queue.enqueue(
        reviewJob({ reason: 'comment-command', explicit: true }),
      );
      expect(rerender.status).toBe('queued');
      await settle();
      expect(first.ctx.signal.aborted).toBe(false);
      expect(await first.ctx.isCurrent()).toBe(true);
      expect(runs).toHaveLength(1);
      first.finish();
      await waitForStatus(queue, reviewed.jobId ?? '', 'completed');
      const second = await waitFor(() => runs[1], 'the re-render run');
      second.finish();
      await waitForStatus(queue, rerender.jobId ?? '', 'completed');
      expect(second.job.reason).toBe('comment-command');
    });

    it('cancels the running job and replaces the waiting one when the base branch changes', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor, { concurrency: 2 });
      await queue.enqueue(reviewJob());
      const first = await waitFor(() => runs[0], 'the first run');
      const waiting = await queue.enqueue(pullOnlyJob());
      const rebased = reviewJob({ baseRef: 'release', reason: 'base-changed', explicit: true });
      const outcome = await queue.enqueue(rebased);
      expect(outcome.status).toBe('replaced');
      await waitForStatus(queue, waiting.jobId ?? '', 'cancelled');
      await waitFor(() => first.ctx.signal.aborted, 'the run on the old base to be aborted');
      const second = await waitFor(() => runs[1], 'the run on the new base');
      expect(second.job.baseRef).toBe('release');
      second.finish();
      await waitForStatus(queue, outcome.jobId ?? '', 'completed');
    });

    it('keeps a flood of renders on one PR to one running and one waiting job', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor, { concurrency: 3 });
      const first = await queue.enqueue(pullOnlyJob());
      const run = await waitFor(() => runs[0], 'the first run');
      const outcomes = [];
      for (let i = 0; i < 50; i += 1) {
        outcomes.push(await queue.enqueue(pullOnlyJob({ deliveryId: `flood-${i}` })));
      }
      const waiting = outcomes[0];
      expect(waiting?.status).toBe('queued');
      expect(outcomes.slice(1)).toEqual(
        Array.from({ length: 49 }, () => ({ status: 'coalesced', jobId: waiting?.jobId })),
      );
      await settle();
      expect(runs).toHaveLength(1);
      expect(await queue.depth()).toMatchObject({ active: 1 });
      run.finish();
      await waitForStatus(queue, first.jobId ?? '', 'completed');
      const second = await waitFor(() => runs[1], 'the coalesced run');
      second.finish();
      await waitForStatus(queue, waiting?.jobId ?? '', 'completed');
      expect(runs).toHaveLength(2);
    });

    it('drops the retry of a failed job when a newer job of its PR waits', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor, { concurrency: 2 });
      const failing = await queue.enqueue(reviewJob());
      const first = await waitFor(() => runs[0], 'the first run');
      const render = await queue.enqueue(pullOnlyJob());
      first.finish(new Error('registry timed out'));
      const dropped = await waitForStatus(queue, failing.jobId ?? '', 'cancelled');
      expect(dropped.reason).toBe(`superseded by job ${render.jobId}`);
      const second = await waitFor(() => runs[1], 'the waiting render');
      expect(second.job).toEqual(pullOnlyJob());
      second.finish();
      await waitForStatus(queue, render.jobId ?? '', 'completed');
      expect(runs).toHaveLength(2);
    });

    it("starts another PR's job before the flooding PR's second job", async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor, { concurrency: 1 });
      await queue.enqueue(pullOnlyJob());
      const run = await waitFor(() => runs[0], 'the first run');
      for (let i = 0; i < 20; i += 1) {
        await queue.enqueue(pullOnlyJob({ deliveryId: `flood-${i}` }));
      }
      const otherPull = { ...reviewJob().pull, pullNumber: 43 };
      await queue.enqueue(reviewJob({ pull: otherPull }));
      run.finish();
      const next = await waitFor(() => runs[1], 'the next run');
      expect(next.job.pull).toEqual(otherPull);
      next.finish();
      const last = await waitFor(() => runs[2], 'the flooding PR again');
      expect(last.job.pull).toEqual(reviewJob().pull);
      last.finish();
    });

    it('runs the jobs of a quiet repository before the backlog of a busy one', async () => {
      const { queue, startWorker } = await open();
      const busy = (n: number) => ({ owner: 'acme', repo: 'busy', pullNumber: n });
      for (let n = 1; n <= 6; n += 1) await queue.enqueue(reviewJob({ pull: busy(n) }));
      const quiet = { owner: 'other', repo: 'quiet', pullNumber: 1 };
      await queue.enqueue(reviewJob({ pull: quiet }));
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor, { concurrency: 1 });
      await waitFor(() => calls.length === 7, 'every job to run');
      const order = calls.map((call) => call.job.pull);
      expect(order.findIndex((pull) => pull.repo === 'quiet')).toBeLessThanOrEqual(1);
    });

    it('counts calls against a bucket and refuses those past the limit until its window ends', async () => {
      const { queue, secondQueue } = await open();
      const other = await secondQueue();
      const limit = { count: 3, windowSeconds: 60 };
      const answers = [];
      for (const q of [queue, other, queue, other, queue])
        answers.push(await q.admit('api:token-a', limit));
      expect(answers.slice(0, 3)).toEqual([
        { admitted: true },
        { admitted: true },
        { admitted: true },
      ]);
      for (const refused of answers.slice(3)) {
        expect(refused.admitted).toBe(false);
        const wait = refused.admitted ? 0 : refused.retryAfterSeconds;
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(60);
      }
      expect(await queue.admit('api:token-b', limit)).toEqual({ admitted: true });
    });

    it('drops the waiting job when the pull request closes and reviews it again on reopen', async () => {
      const { queue } = await open();
      const waiting = await queue.enqueue(reviewJob());
      await queue.cancel(reviewJob().pull);
      expect(await queue.state(waiting.jobId ?? '')).toMatchObject({
        status: 'cancelled',
        reason: 'pull request closed',
      });
      expect((await queue.depth()).waiting).toBe(0);
      expect((await queue.enqueue(reviewJob({ reason: 'reopened' }))).status).toBe('queued');
    });

    it('cancels the running job when the pull request closes', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor);
      const running = await queue.enqueue(reviewJob());
      const run = await waitFor(() => runs[0], 'the run');
      await queue.cancel(reviewJob().pull);
      await waitFor(() => run.ctx.signal.aborted, 'the run to be aborted');
      expect(await run.ctx.isCurrent()).toBe(false);
      const state = await waitForStatus(queue, running.jobId ?? '', 'cancelled');
      expect(state.reason).toBe('pull request closed');
      expect(runs).toHaveLength(1);
    });

    it('retries a job that throws and completes it on a later attempt', async () => {
      const { queue, startWorker } = await open();
      const { calls, processor } = scriptedProcessor([new Error('registry timed out'), undefined]);
      await startWorker(processor);
      const { jobId = '' } = await queue.enqueue(reviewJob());
      const state = await waitForStatus(queue, jobId, 'completed');
      expect(state.attempts).toBe(2);
      expect(calls.map((call) => call.attempt)).toEqual([1, 2]);
    });

    it('fails a job after its last attempt and lets the same head be queued again', async () => {
      const { queue, startWorker } = await open({ attempts: 2, backoffMs: 20 });
      const { calls, processor } = scriptedProcessor([new Error('registry timed out')]);
      await startWorker(processor);
      const { jobId = '' } = await queue.enqueue(reviewJob());
      const state = await waitForStatus(queue, jobId, 'failed');
      expect(state).toMatchObject({ attempts: 2, reason: 'registry timed out' });
      expect(calls).toHaveLength(2);
      expect((await queue.enqueue(reviewJob({ reason: 'resync' }))).status).toBe('queued');
    });

    it('fails a permanent error at once and says why', async () => {
      const { queue, startWorker } = await open();
      const error = new PermanentJobError('kustomization.yaml is not valid YAML');
      const { calls, processor } = scriptedProcessor([error, undefined]);
      await startWorker(processor);
      const { jobId = '' } = await queue.enqueue(reviewJob());
      const state = await waitForStatus(queue, jobId, 'failed');
      expect(state).toMatchObject({ attempts: 1, reason: 'kustomization.yaml is not valid YAML' });
      expect(calls).toHaveLength(1);
    });

    it('remembers a delivery id and recognises its redelivery', async () => {
      const { queue } = await open();
      expect(await queue.firstSeen('72d3162e-cc78-11e3-81ab-4c9367dc0958')).toBe(true);
      expect(await queue.firstSeen('72d3162e-cc78-11e3-81ab-4c9367dc0958')).toBe(false);
      expect(await queue.firstSeen('a5e0b3c4-cc78-11e3-81ab-4c9367dc0958')).toBe(true);
    });

    it('accepts a delivery id again once it is forgotten, from any server', async () => {
      const { queue, secondQueue } = await open();
      const other = await secondQueue();
      await queue.forget('never-seen-delivery');
      expect(await queue.firstSeen('b4f1e2a0-cc78-11e3-81ab-4c9367dc0958')).toBe(true);
      await other.forget('b4f1e2a0-cc78-11e3-81ab-4c9367dc0958');
      expect(await queue.firstSeen('b4f1e2a0-cc78-11e3-81ab-4c9367dc0958')).toBe(true);
      expect(await other.firstSeen('b4f1e2a0-cc78-11e3-81ab-4c9367dc0958')).toBe(false);
    });

    it('keeps the latest result per pull request', async () => {
      const { queue } = await open();
      const pull = reviewJob().pull;
      const otherPull = { ...pull, pullNumber: 43 };
      expect(await queue.results.get(pull)).toBeUndefined();
      await queue.results.put(pull, sha('a'), '{"verdict":"safe"}');
      await queue.results.put(pull, sha('b'), '{"verdict":"danger"}');
      expect(await queue.results.get(pull)).toEqual({
        headSha: sha('b'),
        resultJson: '{"verdict":"danger"}',
      });
      expect(await queue.results.has(pull, sha('b'))).toBe(true);
      expect(await queue.results.has(pull, sha('a'))).toBe(false);
      expect(await queue.results.get(otherPull)).toBeUndefined();
    });

    it('lists the latest result of the most recently reviewed pull requests, newest first', async () => {
      const { queue } = await open();
      const fleet = reviewJob().pull;
      const apps = { owner: 'Acme', repo: 'Apps', pullNumber: 7 };
      await queue.results.put(fleet, sha('a'), '{"verdict":"safe"}');
      await queue.results.put(apps, sha('b'), '{"verdict":"info"}');
      await queue.results.put({ ...fleet, pullNumber: 43 }, sha('c'), '{"verdict":"caution"}');
      await queue.results.put(fleet, sha('d'), '{"verdict":"danger"}');
      const listed = await queue.results.list({ limit: 10 });
      const lower = (p: PullRef) => ({
        ...p,
        owner: p.owner.toLowerCase(),
        repo: p.repo.toLowerCase(),
      });
      expect(listed.map((r) => [r.pull, r.headSha, r.resultJson])).toEqual([
        [lower(fleet), sha('d'), '{"verdict":"danger"}'],
        [lower({ ...fleet, pullNumber: 43 }), sha('c'), '{"verdict":"caution"}'],
        [lower(apps), sha('b'), '{"verdict":"info"}'],
      ]);
      expect(listed.every((r) => r.storedAt > 0)).toBe(true);
      expect((await queue.results.list({ limit: 2 })).map((r) => r.headSha)).toEqual([
        sha('d'),
        sha('c'),
      ]);
      const one = await queue.results.list({
        limit: 10,
        repository: { owner: 'ACME', repo: 'apps' },
      });
      expect(one.map((r) => r.headSha)).toEqual([sha('b')]);
    });

    it('lets a running job finish when the worker closes within the grace period', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      const worker = await startWorker(processor, { graceMs: 10_000 });
      const { jobId = '' } = await queue.enqueue(reviewJob());
      const run = await waitFor(() => runs[0], 'the run');
      const closed = worker.close();
      run.finish();
      await closed;
      expect(run.ctx.signal.aborted).toBe(false);
      expect(await queue.state(jobId)).toMatchObject({ status: 'completed' });
    });

    it('returns a job outliving the grace period to the queue for another worker', async () => {
      const { queue, startWorker } = await open();
      const gated = gatedProcessor();
      const first = await startWorker(gated.processor, { graceMs: 100 });
      const { jobId = '' } = await queue.enqueue(reviewJob());
      const run = await waitFor(() => gated.runs[0], 'the first run');
      await first.close();
      expect(run.ctx.signal.reason).toMatchObject({ kind: 'shutdown' });
      expect(await queue.state(jobId)).toMatchObject({ status: 'waiting' });
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      const state = await waitForStatus(queue, jobId, 'completed');
      expect(calls).toEqual([{ job: reviewJob(), attempt: 1 }]);
      expect(state.attempts).toBe(1);
    });

    it('answers ping and counts waiting jobs per pull request', async () => {
      const { queue } = await open();
      expect(await queue.ping()).toBe(true);
      await queue.enqueue(reviewJob());
      await queue.enqueue(reviewJob({ pull: { ...reviewJob().pull, pullNumber: 43 } }));
      await queue.enqueue(reviewJob({ headSha: sha('c') }));
      expect(await queue.depth()).toEqual({ waiting: 2, active: 0, delayed: 0, failed: 0 });
    });
  });

  describePullOnlySemantics(adapter);
}

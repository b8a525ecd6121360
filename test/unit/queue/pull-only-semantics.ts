/**
 * Renders that name only the pull request (a `/fluxlens render` comment, an API call): no
 * head and no base, explicit by nature. Run against every adapter by queue-semantics.ts.
 */
import { describe, expect, it } from 'vitest';
import { JobInterruptedError, PermanentJobError } from '../../../src/queue/index.js';
import {
  type QueueAdapter,
  gatedProcessor,
  pullOnlyJob,
  reviewJob,
  scriptedProcessor,
  sha,
  waitFor,
  waitForStatus,
  useHarness,
} from './queue-test-kit.js';

export function describePullOnlySemantics(adapter: QueueAdapter): void {
  describe(`${adapter.name} queue, renders that name only the pull request`, () => {
    const open = useHarness(adapter);

    it('runs the render and reports its state without a head', async () => {
      const { queue, startWorker } = await open();
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      const outcome = await queue.enqueue(pullOnlyJob());
      expect(outcome.status).toBe('queued');
      const jobId = outcome.jobId ?? '';
      const state = await waitForStatus(queue, jobId, 'completed');
      expect(state).toEqual({ jobId, pull: pullOnlyJob().pull, status: 'completed', attempts: 1 });
      expect(calls).toEqual([{ job: pullOnlyJob(), attempt: 1 }]);
    });

    it('replaces the waiting job, whose head then counts as covered', async () => {
      const { queue, startWorker } = await open();
      const older = await queue.enqueue(reviewJob());
      const render = await queue.enqueue(pullOnlyJob({ reason: 'api' }));
      expect(render.status).toBe('replaced');
      expect(await queue.state(older.jobId ?? '')).toMatchObject({
        status: 'cancelled',
        reason: `replaced by job ${render.jobId}`,
      });
      expect(await queue.enqueue(reviewJob({ reason: 'resync' }))).toEqual({
        status: 'duplicate',
        jobId: render.jobId,
      });
      expect((await queue.depth()).waiting).toBe(1);
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      await waitForStatus(queue, render.jobId ?? '', 'completed');
      expect(calls.map((call) => call.job)).toEqual([pullOnlyJob({ reason: 'api' })]);
    });

    it('is replaced while waiting by another render or by a new head', async () => {
      const { queue } = await open();
      const first = await queue.enqueue(pullOnlyJob());
      const second = await queue.enqueue(pullOnlyJob({ deliveryId: 'delivery-3' }));
      expect(second.status).toBe('replaced');
      const pushed = await queue.enqueue(reviewJob({ headSha: sha('b') }));
      expect(pushed.status).toBe('replaced');
      expect(await queue.state(first.jobId ?? '')).toMatchObject({ status: 'cancelled' });
      expect(await queue.state(second.jobId ?? '')).toMatchObject({
        status: 'cancelled',
        reason: `replaced by job ${pushed.jobId}`,
      });
      expect((await queue.depth()).waiting).toBe(1);
    });

    it('cancels the running job and runs the render', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor);
      const older = await queue.enqueue(reviewJob());
      const first = await waitFor(() => runs[0], 'the first run');
      const render = await queue.enqueue(pullOnlyJob());
      expect(render.status).toBe('queued');
      await waitFor(() => first.ctx.signal.aborted, 'the first run to be aborted');
      expect(first.ctx.signal.reason).toBeInstanceOf(JobInterruptedError);
      expect(await first.ctx.isCurrent()).toBe(false);
      const second = await waitFor(() => runs[1], 'the render run');
      expect(second.job).toEqual(pullOnlyJob());
      expect(await second.ctx.isCurrent()).toBe(true);
      second.finish();
      await waitForStatus(queue, render.jobId ?? '', 'completed');
      const cancelled = await queue.state(older.jobId ?? '');
      expect(cancelled).toMatchObject({ status: 'cancelled', headSha: sha('a') });
      expect(cancelled?.reason).toContain('superseded');
    });

    it('keeps the reviewed head as reviewed once the render completes', async () => {
      const { queue, startWorker } = await open();
      const { processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      const reviewed = await queue.enqueue(reviewJob());
      await waitForStatus(queue, reviewed.jobId ?? '', 'completed');
      const render = await queue.enqueue(pullOnlyJob());
      await waitForStatus(queue, render.jobId ?? '', 'completed');
      expect(await queue.enqueue(reviewJob({ reason: 'resync' }))).toEqual({
        status: 'duplicate',
        jobId: render.jobId,
      });
      expect((await queue.enqueue(reviewJob({ headSha: sha('b') }))).status).toBe('queued');
    });

    it('lets the head it replaced be queued again when the render fails', async () => {
      const { queue, startWorker } = await open();
      await queue.enqueue(reviewJob());
      const render = await queue.enqueue(pullOnlyJob());
      const failure = new PermanentJobError('pull request not found');
      await startWorker(scriptedProcessor([failure]).processor);
      await waitForStatus(queue, render.jobId ?? '', 'failed');
      expect((await queue.enqueue(reviewJob({ reason: 'resync' }))).status).toBe('queued');
    });

    it('refuses a review that is neither explicit nor names a head', async () => {
      const { queue } = await open();
      const job = pullOnlyJob({ reason: 'resync', explicit: false });
      await expect(queue.enqueue(job)).rejects.toThrow(/names its head SHA/);
      await expect(queue.enqueue({ ...job, headSha: sha('a') })).rejects.toThrow();
      expect((await queue.depth()).waiting).toBe(0);
    });
  });
}

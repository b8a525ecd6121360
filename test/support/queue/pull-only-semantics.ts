/**
 * Renders that name only the pull request (a `/fluxlens render` comment, an API call): no
 * head and no base, explicit by nature. Run against every adapter by queue-semantics.ts.
 */
import { describe, expect, it } from 'vitest';
import { PermanentJobError } from '../../../src/queue/index.js';
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

    it('is coalesced into the waiting job, which reviews the newest head', async () => {
      const { queue, startWorker } = await open();
      const waiting = await queue.enqueue(reviewJob());
      const render = await queue.enqueue(pullOnlyJob({ reason: 'api' }));
      expect(render).toEqual({ status: 'coalesced', jobId: waiting.jobId });
      expect(await queue.enqueue(reviewJob({ reason: 'resync' }))).toEqual({
        status: 'duplicate',
        jobId: waiting.jobId,
      });
      expect((await queue.depth()).waiting).toBe(1);
      const { calls, processor } = scriptedProcessor([undefined]);
      await startWorker(processor);
      await waitForStatus(queue, waiting.jobId ?? '', 'completed');
      expect(calls.map((call) => call.job)).toEqual([reviewJob()]);
    });

    it('takes further renders in while waiting, and is replaced by a new head', async () => {
      const { queue } = await open();
      const first = await queue.enqueue(pullOnlyJob());
      const second = await queue.enqueue(pullOnlyJob({ deliveryId: 'delivery-3' }));
      expect(second).toEqual({ status: 'coalesced', jobId: first.jobId });
      const pushed = await queue.enqueue(reviewJob({ headSha: sha('b') }));
      expect(pushed.status).toBe('replaced');
      expect(await queue.state(first.jobId ?? '')).toMatchObject({
        status: 'cancelled',
        reason: `replaced by job ${pushed.jobId}`,
      });
      expect((await queue.depth()).waiting).toBe(1);
    });

    it('lets the running job finish, then runs the render', async () => {
      const { queue, startWorker } = await open();
      const { runs, processor } = gatedProcessor();
      await startWorker(processor, { concurrency: 2 });
      const older = await queue.enqueue(reviewJob());
      const first = await waitFor(() => runs[0], 'the first run');
      const render = await queue.enqueue(pullOnlyJob());
      expect(render.status).toBe('queued');
      await settle();
      expect(first.ctx.signal.aborted).toBe(false);
      expect(await first.ctx.isCurrent()).toBe(true);
      expect(runs).toHaveLength(1);
      first.finish();
      await waitForStatus(queue, older.jobId ?? '', 'completed');
      const second = await waitFor(() => runs[1], 'the render run');
      expect(second.job).toEqual(pullOnlyJob());
      expect(await second.ctx.isCurrent()).toBe(true);
      second.finish();
      await waitForStatus(queue, render.jobId ?? '', 'completed');
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

    it('lets the head be queued again when the job a render joined fails', async () => {
      const { queue, startWorker } = await open();
      await queue.enqueue(reviewJob());
      const render = await queue.enqueue(pullOnlyJob());
      expect(render.status).toBe('coalesced');
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

/**
 * Async jobs of a gateway process that died (docs/recovery.md, docs/async-skills.md): the job
 * a killed process was running stays `active` in pg-boss until its expiry (the background cap
 * + 60 s, an hour by default). The runner notes on each job it starts which instance runs it;
 * the takeover of a dead instance hands its jobs back (pg-boss retries them at once), and only
 * its jobs. Embedded: every job that was running before this runner started. Both engines.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ASYNC_QUEUE } from '../../src/async/job.ts';
import type { AsyncRunner } from '../../src/async/runner.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { closeGate, makeAsyncHarness, type AsyncHarness } from './helpers.ts';

const POLL = { timeout: 20_000, interval: 100 };

describeEachEngine('async jobs of a stopped process', (db, engine) => {
  let h: AsyncHarness;
  const extra: AsyncRunner[] = [];
  beforeAll(async () => {
    h = await makeAsyncHarness(db(), { runner: { instanceId: 'inst-first' } });
  });
  afterAll(async () => {
    closeGate()();
    for (const r of extra) await r.stop({ timeoutMs: 1000 });
    await h?.stop();
  });

  const job = async (tag: string) =>
    (
      await db().query<{ id: string; state: string; retry_count: number; owner: string | null }>(
        `SELECT id, state, retry_count, output->>'skillgate_instance' AS owner FROM pgboss.job WHERE name = $1 AND data->'input'->>'tag' = $2`,
        [ASYNC_QUEUE, tag],
      )
    ).rows[0];

  /**
   * Start a job on the harness's runner (instance `owner`) and hold it there: the job stays
   * active, as when that process was killed (a clean stop would hand it back itself).
   */
  async function stranded(tag: string, owner: string): Promise<() => void> {
    const open = closeGate();
    await h.turn('telegram', `/slow_report tag=${tag}`);
    await expect.poll(async () => (await job(tag))?.owner, POLL).toBe(owner);
    expect((await job(tag))!.state).toBe('active');
    return open;
  }

  it('the dead instance’s running job is retried at once by another runner, and pushed once', async () => {
    const tag = `to-${engine}-${Date.now()}`;
    const open = await stranded(tag, 'inst-first');
    const next = h.newRunner({ instanceId: 'inst-second' });
    await next.start();
    extra.push(next);
    expect(await next.takeOver(['inst-unrelated'])).toBe(0);
    expect((await job(tag))!.state).toBe('active');
    expect(await next.takeOver(['inst-first'])).toBe(1);
    open();
    await expect.poll(async () => (await job(tag))?.state, POLL).toBe('completed');
    expect((await job(tag))!.retry_count).toBe(1);
    await expect.poll(() => h.telegram.sent.filter((s) => (s.message.text ?? '').includes(`报表 ${tag}`)).length, POLL).toBe(1);
    const { rows } = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE idempotency_key LIKE $1`,
      [`async:${(await job(tag))!.id}:%`],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it("'all' (embedded start) hands back jobs that ran before this runner started, not its own", async () => {
    // Only the new "first process" works the queue now.
    await h.runner.stop({ timeoutMs: 1000 });
    for (const r of extra.splice(0)) await r.stop({ timeoutMs: 1000 });
    h.runner = h.newRunner({ instanceId: 'inst-first-again' });
    await h.runner.start();
    const tag = `all-${engine}-${Date.now()}`;
    const open = await stranded(tag, 'inst-first-again');
    const next = h.newRunner({ instanceId: 'inst-third' });
    await next.start();
    extra.push(next);
    expect(await next.takeOver('all')).toBe(1);
    open();
    await expect.poll(async () => (await job(tag))?.state, POLL).toBe('completed');
    expect((await job(tag))!.retry_count).toBe(1);
  });
});

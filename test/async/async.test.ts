/**
 * Async skills (R-ASYNC-01..07, A-48, A-56) through the real turn, the real
 * outbox and pg-boss on the test database: on a text channel the call answers at once and the
 * result (with its file as media) is pushed when the background run ends; web stays
 * synchronous; a failure pushes its user_message; a job stored before a restart still runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ASYNC_QUEUE } from '../../src/async/job.ts';
import type { OutboundMessage } from '../../src/channel/types.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { closeGate, makeAsyncHarness, observed, type AsyncHarness } from './helpers.ts';

const POLL = { timeout: 20_000, interval: 100 };

function textOf(m: OutboundMessage): string {
  return [m.text ?? '', m.display_md ?? ''].join('\n');
}

describeEachEngine('async skills', (db, engine) => {
  let h: AsyncHarness;
  beforeAll(async () => {
    h = await makeAsyncHarness(db());
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('R-ASYNC-01/02/03: on a text channel the call answers at once; the result and its file are pushed when the run ends', async () => {
    await setSkillConfig(db(), h.services.secretKey, {
      roleId: 'default',
      skill: 'slow_report',
      key: 'region',
      value: '华东',
      via: 'operator',
    });
    const open = closeGate();
    const tag = `t-${engine}-${Date.now()}`;
    const immediate = await h.turn('telegram', `/slow_report tag=${tag}`);

    // The turn has answered while the skill is still held at its gate.
    expect(immediate.map(textOf).join('\n')).toContain('「slow_report」已在后台开始执行');
    expect(observed(tag)).toBeUndefined();
    const { rows } = await db().query<{ state: string }>(`SELECT state FROM pgboss.job WHERE name = $1 AND data->'input'->>'tag' = $2`, [
      ASYNC_QUEUE,
      tag,
    ]);
    expect(rows).toHaveLength(1);

    open();
    await expect
      .poll(() => h.telegram.sent.find((s) => s.message.media?.some((m) => m.filename === `report-${tag}.csv`)), POLL)
      .toBeDefined();
    const sent = h.telegram.sent.filter((s) => s.target.chat_id === h.telegram.sent.at(-1)!.target.chat_id);
    const ackAt = sent.findIndex((s) => textOf(s.message).includes('已在后台开始执行'));
    const resultAt = sent.findIndex((s) => textOf(s.message).includes(`报表 ${tag}`) && textOf(s.message).includes('合计 42'));
    expect(ackAt).toBeGreaterThanOrEqual(0);
    expect(resultAt).toBeGreaterThan(ackAt);
    const all = sent.slice(resultAt).map((s) => s.message);
    expect(all.map(textOf).join('\n')).toContain('合计 42');
    const media = all.flatMap((m) => m.media ?? []).find((m) => m.filename === `report-${tag}.csv`)!;
    expect(media.kind).toBe('file');
    expect(media.file_id).toBeTruthy();
    expect(sent[resultAt]!.target.channel).toBe('telegram');

    // R-ASYNC-05/06: no request, channel_registry or abort_signal; stored config reaches the run.
    const run = observed(tag)!;
    expect(run).toMatchObject({
      request: null,
      channel_registry: null,
      abort_signal: null,
      has_db_factory: true,
      channel: 'telegram',
      region: '华东',
    });
    expect(run.actor_name).toBe('测试用户');
    await expect
      .poll(
        async () =>
          (
            await db().query<{ state: string }>(`SELECT state FROM pgboss.job WHERE name = $1 AND data->'input'->>'tag' = $2`, [
              ASYNC_QUEUE,
              tag,
            ])
          ).rows[0]?.state,
        POLL,
      )
      .toBe('completed');
  });

  it('R-ASYNC-04, A-56: on web the same skill runs synchronously and the turn itself answers with the result', async () => {
    closeGate()();
    const tag = `w-${engine}-${Date.now()}`;
    const out = await h.turn('web', `/slow_report tag=${tag}`);
    expect(observed(tag)).toBeDefined();
    // a synchronous run does get its wall's signal (R-WALL-05), unlike the background run
    expect(observed(tag)!.abort_signal).toBeInstanceOf(AbortSignal);
    expect(out.map(textOf).join('\n')).toContain('合计 42');
    expect(out.map(textOf).join('\n')).not.toContain('已在后台开始执行');
    expect(out.flatMap((m) => m.media ?? []).map((m) => m.filename)).toContain(`report-${tag}.csv`);
    const { rows } = await db().query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND data->'input'->>'tag' = $2`, [ASYNC_QUEUE, tag]);
    expect(rows).toHaveLength(0);
  });

  it('A-48: a failing async skill pushes its user_message (no stack, no raw error) to the chat', async () => {
    const tag = `f-${engine}-${Date.now()}`;
    const immediate = await h.turn('telegram', `/async_fail tag=${tag}`);
    expect(immediate.map(textOf).join('\n')).toContain('已在后台开始执行');
    await expect.poll(() => h.telegram.sent.find((s) => textOf(s.message).includes(`报表 ${tag} 未生成`)), POLL).toBeDefined();
    const pushed = h.telegram.sent.find((s) => textOf(s.message).includes(`报表 ${tag} 未生成`))!;
    expect(textOf(pushed.message)).toContain('数据源暂时不可用');
    expect(textOf(pushed.message)).not.toContain('Object.fetch');
  });

  it('a call refused before execution (missing required input) is answered synchronously, no job is stored', async () => {
    const before = (await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM pgboss.job WHERE name = $1`, [ASYNC_QUEUE])).rows[0]!
      .n;
    const out = await h.turn('telegram', '/slow_report');
    expect(out.map(textOf).join('\n')).not.toContain('已在后台开始执行');
    expect(out.map(textOf).join('\n')).toMatch(/tag/);
    const after = (await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM pgboss.job WHERE name = $1`, [ASYNC_QUEUE])).rows[0]!.n;
    expect(after).toBe(before);
  });

  it('nothing lost on a restart: a job stored while no worker runs is done by the next worker; re-running a job pushes nothing twice', async () => {
    closeGate()();
    await h.runner.stop();
    const writer = h.newRunner({ work: false });
    await writer.start();
    h.runner = writer;
    const tag = `r-${engine}-${Date.now()}`;
    const immediate = await h.turn('telegram', `/slow_report tag=${tag}`);
    expect(immediate.map(textOf).join('\n')).toContain('已在后台开始执行');
    const job = (
      await db().query<{ id: string; state: string; data: unknown }>(
        `SELECT id, state, data FROM pgboss.job WHERE name = $1 AND data->'input'->>'tag' = $2`,
        [ASYNC_QUEUE, tag],
      )
    ).rows[0]!;
    expect(job.state).toBe('created');
    expect(observed(tag)).toBeUndefined();
    await writer.stop();

    const restarted = h.newRunner();
    await restarted.start();
    h.runner = restarted;
    await expect
      .poll(() => h.telegram.sent.find((s) => textOf(s.message).includes(`报表 ${tag}`) && textOf(s.message).includes('合计 42')), POLL)
      .toBeDefined();

    const keyed = async (): Promise<number> =>
      Number(
        (
          await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM skillgate.outbox_messages WHERE idempotency_key LIKE $1`, [
            `async:${job.id}:%`,
          ])
        ).rows[0]!.n,
      );
    const pushed = await keyed();
    expect(pushed).toBeGreaterThan(0);
    await restarted.runJob(
      job.id,
      (typeof job.data === 'string' ? JSON.parse(job.data) : job.data) as Parameters<typeof restarted.runJob>[1],
    );
    expect(await keyed()).toBe(pushed);
  });
});

/**
 * One owner per long connection (docs/operations-delivery.md "One owner per long connection"):
 * two replicas' runners on one lease key against the real database — one transport at a time,
 * takeover after the holder stops or loses the database, fencing of late events, and the
 * transport's stored state (a resumable session) written only by the holder.
 */
import { expect, it } from 'vitest';
import { pgConnectionStateStore } from '../../src/channel/connection-state.ts';
import { LeaseLostError } from '../../src/channel/errors.ts';
import { listLeases, pgLeaseStore, type LeaseStore } from '../../src/channel/leases.ts';
import {
  leaseTiming,
  leaseTimingFromEnv,
  longConnectionKey,
  runLongConnection,
  type LeaseTiming,
} from '../../src/channel/long-connection.ts';
import type { AdapterHost, ChannelAdapter, InboundMessage } from '../../src/channel/types.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { captureLog, until } from '../inbox/helpers.ts';

const TIMING: LeaseTiming = { ttlMs: 3000, heartbeatMs: 500, retryMs: 100, marginMs: 600 };
const KEY = 'telegram:default';

/** One replica's view: a transport that records when it runs, and the events it was handed. */
function replica(name: string, events: string[], active: { n: number; max: number }) {
  let host: AdapterHost | undefined;
  const adapter: ChannelAdapter = {
    channel: 'telegram',
    account: 'default',
    longConnection: {},
    capabilities: { display: 'text', buttons: false, max_length: 100, length_unit: 'chars', typing: false, media: false },
    send: async () => ({ ok: true, message_ids: [] }),
    async start(h) {
      host = h;
      active.n++;
      active.max = Math.max(active.max, active.n);
      events.push(`${name}:start`);
    },
    async stop() {
      if (!host) return;
      host = undefined;
      active.n--;
      events.push(`${name}:stop`);
    },
  };
  return { adapter, host: () => host };
}

function message(id: string): InboundMessage {
  return {
    channel: 'telegram',
    account: 'default',
    dedupe_key: `telegram:update:${id}`,
    kind: 'message',
    message_id: id,
    chat: { id: '1', type: 'direct' },
    raw_input: 'hi',
    attachments: [],
    actor: { id: '7', display_name: 'x' },
    mentioned_bot: false,
    addressed_to_bot: true,
    reply_to: null,
  };
}

describeEachEngine('long connection leases', (db) => {
  const received: string[] = [];
  const core: AdapterHost = {
    receive: async (m) => (received.push(m.dedupe_key), 'accepted'),
    notice: async () => undefined,
  };

  it('migrates', async () => {
    await migrate(db());
  });

  it('the key names channel, account and shard; the TTL comes from SKILLGATE_LEASE_TTL_SEC (default 10 s, takeover ≤ 12 s)', () => {
    const a = replica('a', [], { n: 0, max: 0 }).adapter;
    expect(longConnectionKey(a)).toBe('telegram:default');
    expect(longConnectionKey({ ...a, channel: 'discord', longConnection: { shard: '0' } })).toBe('discord:default:0');
    expect(longConnectionKey({ ...a, longConnection: null })).toBeUndefined();
    const d = leaseTimingFromEnv({});
    expect(d).toEqual(leaseTiming(10));
    expect(d.ttlMs + d.retryMs).toBeLessThanOrEqual(15_000);
    expect(d.heartbeatMs * 2).toBeLessThan(d.ttlMs - d.marginMs); // two lost heartbeats are survived
    expect(leaseTimingFromEnv({ SKILLGATE_LEASE_TTL_SEC: '4' }).ttlMs).toBe(4000);
    expect(() => leaseTimingFromEnv({ SKILLGATE_LEASE_TTL_SEC: 'soon' })).toThrow(/SKILLGATE_LEASE_TTL_SEC/);
  });

  it('two replicas: exactly one runs the transport; a graceful stop hands it over at once with the next generation', async () => {
    await db().query('TRUNCATE skillgate.channel_leases');
    const events: string[] = [];
    const active = { n: 0, max: 0 };
    const a = replica('a', events, active);
    const b = replica('b', events, active);
    const store = pgLeaseStore(db());
    const ra = runLongConnection({ adapter: a.adapter, key: KEY, host: core, store, holder: 'A', timing: TIMING, log: captureLog().log });
    const rb = runLongConnection({ adapter: b.adapter, key: KEY, host: core, store, holder: 'B', timing: TIMING, log: captureLog().log });
    await until(() => ra.held() || rb.held(), 'one holder');
    // several heartbeats pass: still exactly one
    const first = (await listLeases(db()))[0]!;
    await until(async () => (await listLeases(db()))[0]!.expires_at.getTime() > first.expires_at.getTime(), 'a renewal');
    expect([ra.held(), rb.held()].filter(Boolean)).toHaveLength(1);
    const [holder, other] = ra.held() ? [ra, rb] : [rb, ra];
    const holderName = holder === ra ? 'a' : 'b';
    await holder.stop();
    await until(() => other.held(), 'takeover');
    const lease = (await listLeases(db()))[0]!;
    expect(lease.generation).toBe(first.generation + 1);
    expect(lease.holder).toBe(holderName === 'a' ? 'B' : 'A');
    await other.stop();
    expect(active.max).toBe(1);
    expect(events).toEqual([
      `${holderName}:start`,
      `${holderName}:stop`,
      `${holderName === 'a' ? 'b' : 'a'}:start`,
      `${holderName === 'a' ? 'b' : 'a'}:stop`,
    ]);
  });

  it('a holder cut off from the database stops its transport before the other replica starts, and its late events are refused', async () => {
    await db().query('TRUNCATE skillgate.channel_leases');
    received.length = 0;
    const events: string[] = [];
    const active = { n: 0, max: 0 };
    const a = replica('a', events, active);
    const b = replica('b', events, active);
    const real = pgLeaseStore(db());
    let cut = false;
    const down = async () => {
      if (cut) throw new Error('connection terminated');
    };
    // Replica A's database connection can be cut: renewals and fence checks then fail.
    const storeA: LeaseStore = {
      acquire: async (...args) => (await down(), real.acquire(...args)),
      renew: async (...args) => (await down(), real.renew(...args)),
      holds: async (...args) => (await down(), real.holds(...args)),
      release: async (...args) => (await down(), real.release(...args)),
    };
    const ra = runLongConnection({
      adapter: a.adapter,
      key: KEY,
      host: core,
      store: storeA,
      holder: 'A',
      timing: TIMING,
      log: captureLog().log,
    });
    await until(() => ra.held(), 'A holds');
    await a.host()!.receive(message('1'));
    expect(received).toEqual(['telegram:update:1']);
    const lateHost = a.host()!;
    const rb = runLongConnection({
      adapter: b.adapter,
      key: KEY,
      host: core,
      store: real,
      holder: 'B',
      timing: TIMING,
      log: captureLog().log,
    });
    cut = true;
    await until(() => rb.held(), 'B takes over after expiry');
    expect(events.slice(0, 3)).toEqual(['a:start', 'a:stop', 'b:start']); // A stopped before B started
    expect(active.max).toBe(1);
    cut = false; // A's connection is back: its late event is still refused (the generation moved on)
    await expect(lateHost.receive(message('2'))).rejects.toBeInstanceOf(LeaseLostError);
    await expect(lateHost.notice(message('3'), { kind: 'notice', text: 'x', format: 'plain' })).rejects.toBeInstanceOf(LeaseLostError);
    expect(received).toEqual(['telegram:update:1']);
    expect(ra.held()).toBe(false);
    await ra.stop();
    await rb.stop();
  });

  it('a transport that fails to start gives its lease up at once and is retried', async () => {
    await db().query('TRUNCATE skillgate.channel_leases');
    const events: string[] = [];
    const a = replica('a', events, { n: 0, max: 0 });
    let refuse = 1;
    const start = a.adapter.start!.bind(a.adapter);
    const flaky = {
      ...a.adapter,
      async start(h: AdapterHost) {
        if (refuse-- > 0) {
          events.push('a:start-failed');
          throw new Error('401 Unauthorized');
        }
        await start(h);
      },
    };
    const { log, lines } = captureLog();
    const ra = runLongConnection({ adapter: flaky, key: KEY, host: core, store: pgLeaseStore(db()), holder: 'A', timing: TIMING, log });
    await until(() => ra.held(), 'started on the second attempt');
    expect(events).toEqual(['a:start-failed', 'a:start']);
    expect(lines().some((l) => /failed to start; retrying/.test(String(l.msg)))).toBe(true);
    expect((await listLeases(db()))[0]!.generation).toBe(2); // the failed attempt gave its generation up
    await ra.stop();
  });

  it('fencing by token: a holder whose lease was taken over is refused on its next event and stops', async () => {
    await db().query('TRUNCATE skillgate.channel_leases');
    received.length = 0;
    const events: string[] = [];
    const a = replica('a', events, { n: 0, max: 0 });
    const store = pgLeaseStore(db());
    // A long heartbeat: A would not notice the takeover by renewing before its event arrives.
    const slow: LeaseTiming = { ttlMs: 60_000, heartbeatMs: 30_000, retryMs: 100, marginMs: 10_000 };
    const ra = runLongConnection({ adapter: a.adapter, key: KEY, host: core, store, holder: 'A', timing: slow, log: captureLog().log });
    await until(() => ra.held(), 'A holds');
    const host = a.host()!;
    // The lease expires under A (a long pause of its process) and replica B takes it.
    await db().query(`UPDATE skillgate.channel_leases SET expires_at = now() - interval '1 second'`);
    expect(await store.acquire(KEY, 'B', 60_000)).toBe(2);
    await expect(host.receive(message('9'))).rejects.toBeInstanceOf(LeaseLostError);
    expect(received).toEqual([]);
    await until(() => !ra.held(), 'A stops');
    expect(events).toEqual(['a:start', 'a:stop']);
    await ra.stop();
    expect((await listLeases(db()))[0]).toMatchObject({ holder: 'B', generation: 2 });
  });

  it("the stored state: the holder writes it, the next holder reads it, a replaced holder's write changes nothing", async () => {
    await db().query('TRUNCATE skillgate.channel_leases');
    const a = replica('a', [], { n: 0, max: 0 });
    const store = pgLeaseStore(db());
    const state = pgConnectionStateStore(db());
    const slow: LeaseTiming = { ttlMs: 60_000, heartbeatMs: 30_000, retryMs: 100, marginMs: 10_000 };
    const ra = runLongConnection({
      adapter: a.adapter,
      key: KEY,
      host: core,
      store,
      state,
      holder: 'A',
      timing: slow,
      log: captureLog().log,
    });
    await until(() => ra.held(), 'A holds');
    const hostA = a.host()!;
    expect(await hostA.connectionState!.load()).toBeNull();
    expect(await hostA.connectionState!.save({ session_id: 's1', seq: 7 })).toBe(true);
    // A's lease expires (a long pause) and B takes it: B reads A's state, A can no longer write.
    await db().query(`UPDATE skillgate.channel_leases SET expires_at = now() - interval '1 second'`);
    const b = replica('b', [], { n: 0, max: 0 });
    const rb = runLongConnection({
      adapter: b.adapter,
      key: KEY,
      host: core,
      store,
      state,
      holder: 'B',
      timing: slow,
      log: captureLog().log,
    });
    await until(() => rb.held(), 'B holds');
    const hostB = b.host()!;
    expect(await hostB.connectionState!.load()).toEqual({ session_id: 's1', seq: 7 });
    expect(await hostA.connectionState!.save({ session_id: 's1', seq: 99 })).toBe(false);
    expect(await hostB.connectionState!.load()).toEqual({ session_id: 's1', seq: 7 });
    expect(await hostB.connectionState!.save(null)).toBe(true);
    expect(await hostB.connectionState!.load()).toBeNull();
    // A host without a state store offers none.
    expect(core.connectionState).toBeUndefined();
    await ra.stop();
    await rb.stop();
  });
});

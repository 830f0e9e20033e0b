/**
 * The per-engine test bed of the contract suite: fake platform, migrated database, fake clock,
 * the adapter, and a host backed by the real inbox (`createInbox(db).receive`, the PostgreSQL
 * UNIQUE dedup), plus helpers to deliver signed or unsigned webhook requests.
 */
import { createInbox } from '../../src/inbox/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { migrate } from '../../src/store/migrate.ts';
import {
  type AdapterHost,
  type ChannelAdapter,
  type Db,
  handleWebhookRequest,
  type InboundMessage,
  type WebhookAdapter,
  type WebhookRequest,
  type WebhookResponse,
} from '../../src/channel/index.ts';
import { createOutbox, eventNoticeItem } from '../../src/outbox/index.ts';
import { startFakePlatform, type FakePlatform } from './fake-server.ts';
import type { AdapterContractOptions, ContractClock, ContractContext } from './types.ts';

let seqCounter = 900_000;

/** A fresh sequence number for generated events (unique within the test process, far from golden ids). */
export function nextSeq(): number {
  return ++seqCounter;
}

/** One `host.receive` call and its outcome. */
export interface HostCall {
  msg: InboundMessage;
  result: 'accepted' | 'duplicate' | 'ignored' | 'error';
}

/** A host over the real inbox that records every call. */
export interface RecordingHost extends AdapterHost {
  calls: HostCall[];
  /** Messages stored as new. */
  accepted(): InboundMessage[];
}

/** A fake clock starting at `start`. */
export function createClock(start: string): ContractClock {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    set: (v) => {
      t = new Date(v).getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/**
 * A host whose `receive` is the real inbox's (PostgreSQL dedup), recording each call, and whose
 * `notice` is the core's: queued in the real outbox (once per event key), then delivered at once
 * through `adapter` (a function: the adapter may be created after the host; none = only queued).
 */
export function createRecordingHost(db: Db, clock: ContractClock, adapter?: () => ChannelAdapter | undefined): RecordingHost {
  const log = createLogger({ level: 'silent' });
  const inbox = createInbox(db, { log, clock: () => clock.now().getTime() });
  const outbox = createOutbox(db, { log, adapterFor: () => adapter?.() });
  const calls: HostCall[] = [];
  return {
    async notice(event, message) {
      await outbox.enqueue(db, [eventNoticeItem(event, message)]);
      if (!adapter?.()) return;
      while ((await outbox.deliverDue()) > 0) {
        /* deliver what is due now (a retry waits for its time, as in the gateway) */
      }
    },
    calls,
    accepted: () => calls.filter((c) => c.result === 'accepted').map((c) => c.msg),
    async receive(msg) {
      const copy = JSON.parse(JSON.stringify(msg)) as InboundMessage;
      try {
        const result = await inbox.receive(msg);
        calls.push({ msg: copy, result });
        return result;
      } catch (err) {
        calls.push({ msg: copy, result: 'error' });
        throw err;
      }
    },
  };
}

/** Everything one engine's run of the suite holds. */
export interface Bed {
  ctx: ContractContext;
  fake: FakePlatform;
  db: Db;
  clock: ContractClock;
  adapter: WebhookAdapter;
  host: RecordingHost;
  /** Deliver `body`, signed by the suite's signer at the clock's time unless `signed: false`. */
  deliver(body: Buffer, opts?: DeliverOptions): Promise<WebhookResponse>;
  close(): Promise<void>;
}

/** Options of {@link Bed.deliver}. */
export interface DeliverOptions {
  signed?: boolean;
  /** Sign as of this time (default the clock's now). */
  at?: Date;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** Edit the signed request before it is handed over (drop/mutate a header). */
  tamper?(req: WebhookRequest): void;
}

/** Lower-case header names. */
function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Set up fake, database (migrated), clock, host and the adapter. */
export async function openBed(opts: AdapterContractOptions, openDb: () => Promise<Db>): Promise<Bed> {
  const fake = await startFakePlatform();
  opts.installPlatform(fake);
  const db = await openDb();
  await migrate(db);
  const clock = createClock(opts.startTime ?? '2026-01-01T00:00:00Z');
  const ctx: ContractContext = { fake, db, clock, account: 'default' };
  const adapter = await opts.createAdapter(ctx);
  const host = createRecordingHost(db, clock, () => adapter);
  return {
    ctx,
    fake,
    db,
    clock,
    adapter,
    host,
    async deliver(body, d = {}) {
      let headers = lower(d.headers ?? {});
      let query = { ...(d.query ?? {}) };
      let sent = body;
      if (d.signed !== false) {
        const s = opts.sign(body, d.at ?? clock.now());
        headers = { ...headers, ...lower(s.headers) };
        query = { ...query, ...(s.query ?? {}) };
        if (s.body) sent = s.body;
      }
      const req: WebhookRequest = { method: d.method ?? 'POST', path: d.path ?? '', headers, query, body: sent, ip: '127.0.0.1' };
      d.tamper?.(req);
      return handleWebhookRequest(adapter, req, host);
    },
    async close() {
      await adapter.stop?.();
      await fake.close();
      await db.close();
    },
  };
}

/** Resolve once `check()` holds; reject after `limitMs` (a hang guard, not a timing assertion). */
export async function until(check: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Remove every stored inbound event (golden cases start from an empty inbox). */
export async function clearInbox(db: Db): Promise<void> {
  await db.query('DELETE FROM skillgate.inbox_events');
}

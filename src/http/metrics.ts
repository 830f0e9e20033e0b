/**
 * Prometheus metrics of one gateway (prom-client 15): messages in/out per
 * channel, turn latency, skill failures, inbox and outbox backlog, unknown send outcomes, typing/progress suppressed
 * during flood control, heap and memory pressure (src/inbox/pressure.ts; the event-loop delay
 * percentiles are prom-client's `skillgate_nodejs_eventloop_lag_p99_seconds` …). Each gateway has its own
 * registry (several gateways may live in one test process), served at `GET /metrics`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The gateway's metrics and their registry. */
export interface GatewayMetrics {
  registry: Registry;
  /** An inbound event was stored (`result`: accepted | duplicate | ignored). */
  inbound(channel: string, result: string): void;
  /** An outbound message reached a final state (`status`: sent | failed). */
  outbound(channel: string, status: string): void;
  /** A turn finished after `ms` milliseconds with `failures` failed skill calls. */
  turn(channel: string, ms: number, failures: number): void;
  /** A typing action or progress note was dropped: its chat waits out a `retry_after`. */
  suppressed(channel: string, kind: string): void;
  /**
   * A send's outcome was unknown (`event`: unknown), or a resend got past it (resolved_by_key |
   * resent_with_marker): docs/operations-delivery.md "Unknown outcomes".
   */
  ambiguous(channel: string, event: string): void;
}

/**
 * Create the metrics. `backlog` callbacks are read at scrape time (a failing callback
 * leaves the gauge unchanged, so `/metrics` never fails because the database is busy).
 */
export function createMetrics(
  backlog: { inbox?: () => Promise<number>; outbox?: () => Promise<number> } = {},
  memory?: { heap(): { used: number; limit: number }; pressured(): boolean },
): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'skillgate_' });
  const messagesIn = new Counter({
    name: 'skillgate_messages_in_total',
    help: 'Inbound events per channel and result (accepted, duplicate, ignored)',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  const messagesOut = new Counter({
    name: 'skillgate_messages_out_total',
    help: 'Outbound messages per channel and final status (sent, failed)',
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
  });
  const turnSeconds = new Histogram({
    name: 'skillgate_turn_duration_seconds',
    help: 'Time from the start of a turn to its reply being queued, seconds',
    labelNames: ['channel'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const skillFailures = new Counter({
    name: 'skillgate_skill_failures_total',
    help: 'Skill calls in chat turns that ended with success:false',
    labelNames: ['channel'] as const,
    registers: [registry],
  });
  const suppressed = new Counter({
    name: 'skillgate_outbound_suppressed_total',
    help: 'Typing actions and progress notes dropped because their chat waits out a platform retry_after',
    labelNames: ['channel', 'kind'] as const,
    registers: [registry],
  });
  const ambiguous = new Counter({
    name: 'skillgate_outbound_ambiguous_total',
    help: 'Sends whose outcome was unknown (event=unknown), and how their resend went (resolved_by_key, resent_with_marker)',
    labelNames: ['channel', 'event'] as const,
    registers: [registry],
  });
  const gauge = (name: string, help: string, read?: () => Promise<number>): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        if (!read) return;
        try {
          this.set(await read());
        } catch {
          /* keep the last value */
        }
      },
    });
  };
  gauge('skillgate_outbox_backlog', 'Outbound messages not yet sent or failed', backlog.outbox);
  gauge('skillgate_inbox_backlog', 'Inbound events not yet processed', backlog.inbox);
  if (memory) {
    gauge(
      'skillgate_heap_used_bytes',
      'V8 heap in use, bytes (the memory guard compares it with the limit)',
      async () => memory.heap().used,
    );
    gauge('skillgate_heap_limit_bytes', 'V8 heap limit, bytes', async () => memory.heap().limit);
    gauge('skillgate_memory_pressure', '1 while the inbox takes no new turns because of memory pressure', async () =>
      memory.pressured() ? 1 : 0,
    );
  }
  return {
    registry,
    inbound: (channel, result) => messagesIn.inc({ channel, result }),
    outbound: (channel, status) => messagesOut.inc({ channel, status }),
    suppressed: (channel, kind) => suppressed.inc({ channel, kind }),
    ambiguous: (channel, event) => ambiguous.inc({ channel, event }),
    turn: (channel, ms, failures) => {
      turnSeconds.observe({ channel }, ms / 1000);
      if (failures > 0) skillFailures.inc({ channel }, failures);
    },
  };
}

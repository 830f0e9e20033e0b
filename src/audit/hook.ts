/**
 * The one audit hook around the skill call (docs/audit.md): after every top-level skill call
 * (any line, refusals and failures included) one row goes to `skillgate.audit_log`. An audit
 * failure never fails the call: it is logged (without parameters) and the envelope returned.
 */
import type { Envelope } from '../envelope/types.ts';
import type { Logger } from '../log/logger.ts';
import type { Registry } from '../registry/discover.ts';
import type { Db } from '../store/db.ts';
import type { RunSkillRequest, SkillCall } from '../executor/skill-call.ts';
import { buildAuditEntry, type AuditEntry, type AuditOutcome } from './entry.ts';
import type { AuditSink } from './sink.ts';
import { insertAudit } from './store.ts';

/** What the hook needs; `sink` absent → every row is written before the call returns. */
export interface AuditDeps {
  readonly db: Db;
  readonly registry: Registry;
  readonly secretKey: Buffer;
  readonly log: Logger;
  /**
   * Group-commits rows off the call's path (src/audit/sink.ts); whoever answers a person
   * awaits {@link AuditSink.durable} first, so no answered call loses its row.
   */
  readonly sink?: AuditSink;
}

/**
 * `call` with every call recorded. Its result (or thrown error) passes through unchanged;
 * without a sink the row is written before this returns, with one it is handed to the sink.
 */
export function audited(call: SkillCall, deps: AuditDeps): SkillCall {
  return (req) => auditedRun(deps, req, () => call(req));
}

/** Run `run` (the unaudited call of `req`) and record it; see {@link audited}. */
export async function auditedRun(deps: AuditDeps, req: RunSkillRequest, run: () => Promise<Envelope>): Promise<Envelope> {
  const at = req.clock?.() ?? new Date();
  const started = performance.now();
  let outcome: AuditOutcome = { thrown: true };
  try {
    const envelope = await run();
    outcome = { envelope };
    return envelope;
  } finally {
    await recordCall(deps, req, outcome, { at, durationMs: performance.now() - started });
  }
}

async function recordCall(
  deps: AuditDeps,
  req: RunSkillRequest,
  outcome: AuditOutcome,
  timing: { at: Date; durationMs: number },
): Promise<void> {
  let entry: AuditEntry;
  try {
    entry = buildAuditEntry(deps, req, outcome, timing);
    if (deps.sink) return deps.sink.add(entry);
    await insertAudit(deps.db, entry);
  } catch (err) {
    const skill = typeof req.skill === 'string' ? req.skill : req.skill.name;
    deps.log.warn({ skill, line: req.line, err: (err as Error)?.message }, 'audit log: the call could not be recorded');
  }
}

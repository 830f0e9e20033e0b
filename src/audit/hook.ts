/**
 * The one audit hook around `runSkill` (issue 10 item 5): after every top-level skill call
 * (any line, refusals and failures included) one row goes to `skillgate.audit_log`. An audit
 * failure never fails the call: it is logged (without parameters) and the envelope returned.
 */
import type { Envelope } from '../envelope/types.ts';
import type { RunSkillRequest, SkillServices } from '../executor/run-skill.ts';
import { buildAuditEntry, type AuditOutcome } from './entry.ts';
import { insertAudit } from './store.ts';

/**
 * Run `run` (the unaudited call) and record it. The result (or the thrown error) of `run`
 * passes through unchanged; the row is written before this returns.
 */
export async function auditedRun(
  services: Pick<SkillServices, 'db' | 'registry' | 'secretKey' | 'log'>,
  req: RunSkillRequest,
  run: () => Promise<Envelope>,
): Promise<Envelope> {
  const at = req.clock?.() ?? new Date();
  const started = performance.now();
  let outcome: AuditOutcome = { thrown: true };
  try {
    const envelope = await run();
    outcome = { envelope };
    return envelope;
  } finally {
    await recordCall(services, req, outcome, { at, durationMs: performance.now() - started });
  }
}

async function recordCall(
  services: Pick<SkillServices, 'db' | 'registry' | 'secretKey' | 'log'>,
  req: RunSkillRequest,
  outcome: AuditOutcome,
  timing: { at: Date; durationMs: number },
): Promise<void> {
  try {
    await insertAudit(services.db, buildAuditEntry(services, req, outcome, timing));
  } catch (err) {
    const skill = typeof req.skill === 'string' ? req.skill : req.skill.name;
    services.log.warn({ skill, line: req.line, err: (err as Error)?.message }, 'audit log: the call could not be recorded');
  }
}

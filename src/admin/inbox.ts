/** Quarantined inbound events: list, retry, discard (docs/operations-delivery.md). */
import type { Db } from '../store/db.ts';
import { discardQuarantined, listQuarantined, QUARANTINE_PAGE_MAX, retryQuarantined, type QuarantinedEvent } from '../inbox/index.ts';

/** One inbox admin request (also the body of the local admin API route). */
export interface InboxCommandRequest {
  op: 'list' | 'retry' | 'discard';
  id?: string;
  discarded?: boolean;
  limit?: number | string;
}

/** Result of {@link runInboxCommand}. */
export type InboxCommandResult = { ok: true; events?: QuarantinedEvent[]; id?: string } | { ok: false; error: string };

/** Run one inbox admin request. Never throws for a bad request (the database error is thrown). */
export async function runInboxCommand(db: Db, req: InboxCommandRequest): Promise<InboxCommandResult> {
  if (req.op === 'list') {
    let limit = 50;
    if (req.limit !== undefined && req.limit !== '') {
      const n = Number(req.limit);
      if (!Number.isInteger(n) || n < 1 || n > QUARANTINE_PAGE_MAX)
        return { ok: false, error: `--limit must be a whole number from 1 to ${QUARANTINE_PAGE_MAX}, got "${req.limit}"` };
      limit = n;
    }
    return { ok: true, events: await listQuarantined(db, { status: req.discarded ? 'discarded' : 'failed', limit }) };
  }
  const id = String(req.id ?? '');
  const done = req.op === 'retry' ? await retryQuarantined(db, id) : req.op === 'discard' ? await discardQuarantined(db, id) : false;
  return done ? { ok: true, id } : { ok: false, error: `no quarantined inbox event with id "${id}"` };
}

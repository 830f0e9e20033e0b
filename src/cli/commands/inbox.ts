/**
 * `skillgate inbox list [--discarded] [--limit N] [--json]`, `skillgate inbox retry <id>`,
 * `skillgate inbox discard <id>` — quarantined inbound events (docs/operations-delivery.md
 * "Quarantined events"; src/inbox/admin.ts). Works on a server database, on an embedded data
 * dir, and through the running server's local admin API (`POST /api/local/inbox`).
 *
 * Exit codes (README.md "The skillgate command"): 0 done; 1 no quarantined event with that id, or a bad option;
 * 2 no database.
 */
import type { QuarantinedEvent } from '../../inbox/index.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';
import { type InboxCommandRequest, type InboxCommandResult, runInboxCommand } from '../../admin/inbox.ts';

/** One line of the text listing. */
export function formatQuarantined(e: QuarantinedEvent): string {
  return `${e.id}  ${e.received_at}  ${e.chat_key}  from ${e.sender || '-'}  attempts=${e.attempts}  ${JSON.stringify(e.preview)}  error: ${e.error ?? '-'}`;
}

/** Run `skillgate inbox <op>`. @returns 0 done, 1 refused; throws CliError (exit 2) without a database. */
export async function inboxCommand(req: InboxCommandRequest & { json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const request: InboxCommandRequest = { op: req.op, id: req.id, discarded: req.discarded, limit: req.limit };
  const done = await runAdminCommand<InboxCommandResult>(settings, io, {
    direct: (db) => runInboxCommand(db, request),
    path: '/api/local/inbox',
    request,
    json: req.json,
  });
  if ('exit' in done) return done.exit;
  const r = done.result;
  if (req.op === 'list') {
    const events = r.events ?? [];
    io.stdout(events.length === 0 ? 'no quarantined inbox events\n' : events.map((e) => formatQuarantined(e) + '\n').join(''));
  } else io.stdout(`inbox event ${r.id} ${req.op === 'retry' ? 'queued again' : 'discarded'}\n`);
  return EXIT_OK;
}

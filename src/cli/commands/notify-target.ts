/**
 * `skillgate notify target add|list|remove` — the aliases of the built-in `notify` skill
 * (R-MSG-01), stored in `skillgate.notify_targets`:
 *
 *   skillgate notify target add ops 'json://hooks.example/ops' 'mailto://bot:pw@mail.example'
 *   skillgate notify target add devops team_cfg:devops     # an Apprise API config key + tag
 *   skillgate notify target list [--json]                  # URLs shown masked (credentials)
 *   skillgate notify target remove ops
 *
 * Exit codes (README.md "The skillgate command"): 0 done; 1 refused (bad alias or spec, nothing to remove);
 * 2 the database could not be reached. While `serve` runs on an embedded data dir the command
 * goes through the local admin API `POST /api/local/notify/target` (the server mounts
 * {@link runNotifyTargetCommand}).
 */
import type { Db } from '../../store/db.ts';
import {
  ALIAS_RE,
  describeDestination,
  listNotifyTargets,
  parseTargetSpec,
  putNotifyTarget,
  removeNotifyTarget,
} from '../../orchestration/notify-targets.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';

/** One notify-target request (also the body of the local admin API route). */
export interface NotifyTargetRequest {
  op: 'add' | 'list' | 'remove';
  name?: string;
  /** `add`: Apprise URLs, or one `config-key[:tag]`. */
  spec?: string[];
}

/** Result of {@link runNotifyTargetCommand}; descriptions never show URL credentials. */
export type NotifyTargetResult =
  | { ok: true; op: 'add'; name: string; target: string }
  | { ok: true; op: 'remove'; name: string }
  | { ok: true; op: 'list'; targets: { name: string; target: string }[] }
  | { ok: false; error: string };

/** Run one request against the database. Never throws for a user mistake. */
export async function runNotifyTargetCommand(db: Db, req: NotifyTargetRequest): Promise<NotifyTargetResult> {
  if (req.op === 'list') {
    return { ok: true, op: 'list', targets: (await listNotifyTargets(db)).map((t) => ({ name: t.name, target: describeDestination(t.destination) })) };
  }
  const name = req.name?.trim() ?? '';
  if (!ALIAS_RE.test(name)) return { ok: false, error: `"${name}" is not a valid alias (1-64 letters, digits, _ . -)` };
  if (req.op === 'remove') {
    return (await removeNotifyTarget(db, name)) ? { ok: true, op: 'remove', name } : { ok: false, error: `no notify target "${name}"` };
  }
  const d = parseTargetSpec(req.spec ?? []);
  if ('error' in d) return { ok: false, error: d.error };
  await putNotifyTarget(db, name, d);
  return { ok: true, op: 'add', name, target: describeDestination(d) };
}

/** Run `notify target add|list|remove` with commander's arguments. @returns the exit code */
export async function notifyTargetCommand(op: NotifyTargetRequest['op'], name: string | undefined, spec: string[], opts: { json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const req: NotifyTargetRequest = { op, name, spec };
  const done = await runAdminCommand<NotifyTargetResult>(settings, io, { direct: (db) => runNotifyTargetCommand(db, req), path: '/api/local/notify/target', request: req, json: opts.json });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.op === 'add') io.stdout(`notify target ${result.name}: ${result.target}\n`);
  else if (result.op === 'remove') io.stdout(`notify target ${result.name} removed\n`);
  else io.stdout(result.targets.length ? result.targets.map((t) => `${t.name}\t${t.target}\n`).join('') : '(no notify targets)\n');
  return EXIT_OK;
}

/** Aliases of the built-in notify skill: add, list, remove (docs/messaging.md). */
import type { Db } from '../store/db.ts';
import {
  ALIAS_RE,
  describeDestination,
  listNotifyTargets,
  parseTargetSpec,
  putNotifyTarget,
  removeNotifyTarget,
} from '../orchestration/notify-targets.ts';

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
    return {
      ok: true,
      op: 'list',
      targets: (await listNotifyTargets(db)).map((t) => ({ name: t.name, target: describeDestination(t.destination) })),
    };
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

/**
 * Console section `schedules`; docs/chains.md "Schedules";
 * docs/console-sections.md "Schedules"): list, add (or replace) and remove the cron schedules that run a
 * skill or a saved chain and deliver the result — the same `Scheduler` calls as
 * `skillgate schedule add|list|remove`.
 *
 * The gateway passes its running worker-mode scheduler as `deps.scheduler` (see
 * {@link ScheduleDeps}); without one (tests, a console built alone) each write starts a short
 * writer-mode scheduler over `deps.db`, as the CLI does; the gateways plan the change on their
 * next tick (at once on a server, through the `skillgate_schedules` NOTIFY).
 *
 *   GET    /            → {schedules: [ScheduleView], roles, timezone_default: 'UTC'}
 *                          (each with its latest occurrences from the ledger, docs/schedules.md)
 *   POST   / {name, cron, timezone?, kind: 'skill'|'chain', target, input?: object, deliver_to?, role?,
 *              missed?: 'skip'|'once'|'all'}
 *                       → {schedule: ScheduleView}; 400 `refused` (bad name, cron, unknown target…)
 *   DELETE /:name       → {ok:true}; 404 `not_found`
 *
 * Shown without secrets: an Apprise URL in `deliver_to` (`notify:tgram://…`) is masked, and
 * top-level input keys whose name the secret rule matches (docs/skill-authoring.md) show `***`.
 */
import express from 'express';
import { getChain } from '../../chain/store.ts';
import { isAppriseUrl, maskUrl } from '../../orchestration/notify-targets.ts';
import { isSecretName } from '../../registry/secrets.ts';
import { Scheduler, ScheduleError, type Occurrence } from '../../schedule/scheduler.ts';
import {
  getSchedule,
  listSchedules,
  MISSED_POLICIES,
  type MissedPolicy,
  type Schedule,
  type StoredSchedule,
} from '../../schedule/store.ts';
import { fail, roleOf, str, type AdminDeps, type AdminSection } from '../kit.ts';
import { adminOfSafe } from './directory.ts';

/**
 * What this section needs beyond {@link AdminDeps}: the gateway's running scheduler (optional;
 * proposed as `AdminDeps.scheduler?: Scheduler`).
 */
export type ScheduleDeps = AdminDeps & { scheduler?: Scheduler };

/**
 * A schedule as the console shows it: the stored {@link Schedule} with `deliver_to` masked when
 * it holds an Apprise URL, secret-looking input keys masked, and the last run as ISO text.
 */
export interface ScheduleView extends Schedule {
  missed: MissedPolicy;
  last_run_at: string | null;
  last_ok: boolean | null;
  /** The latest occurrences, newest first. */
  occurrences: OccurrenceView[];
}

/** One ledger row as the console shows it. */
export interface OccurrenceView {
  planned_at: string;
  status: Occurrence['status'];
  catch_up: boolean;
  finished_at: string | null;
  error: string | null;
}

/** Occurrences shown per schedule. */
const SHOWN_OCCURRENCES = 10;

function occurrenceView(o: Occurrence): OccurrenceView {
  return {
    planned_at: new Date(o.planned_at).toISOString(),
    status: o.status,
    catch_up: o.catch_up,
    finished_at: o.finished_at ? new Date(o.finished_at).toISOString() : null,
    error: o.error,
  };
}

/** `deliver_to` without credentials: `notify:<apprise url>` → `notify:schema://***`. */
export function maskDeliverTo(to: string): string {
  if (to.startsWith('notify:')) {
    const rest = to.slice('notify:'.length);
    return isAppriseUrl(rest) ? `notify:${maskUrl(rest)}` : to;
  }
  return to;
}

function maskInput(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return {};
  return Object.fromEntries(Object.entries(input as Record<string, unknown>).map(([k, v]) => [k, isSecretName(k) ? '***' : v]));
}

/** The console view of a stored schedule. */
export function scheduleView(s: StoredSchedule, occurrences: Occurrence[] = []): ScheduleView {
  return {
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    kind: s.kind,
    target: s.target,
    input: maskInput(s.input),
    deliver_to: maskDeliverTo(s.deliver_to),
    role_id: s.role_id,
    missed: s.missed,
    last_run_at: s.last_run_at ? new Date(s.last_run_at).toISOString() : null,
    last_ok: s.last_ok,
    occurrences: occurrences.filter((o) => o.schedule === s.name).map(occurrenceView),
  };
}

/** Run `fn` with the gateway's scheduler, or a short-lived writer over `deps.db`. */
async function withScheduler<T>(deps: ScheduleDeps, fn: (s: Scheduler) => Promise<T>): Promise<T> {
  if (deps.scheduler) return fn(deps.scheduler);
  const writer = new Scheduler({ db: deps.db, log: deps.log, mode: 'writer' });
  await writer.start();
  try {
    return await fn(writer);
  } finally {
    await writer.stop();
  }
}

/** The `schedules` section. */
export const schedulesSection: AdminSection = {
  id: 'schedules',
  title: { zh: '定时任务', en: 'Schedules' },
  routes(base) {
    const deps = base as ScheduleDeps;
    const r = express.Router();

    r.get('/', async (_req, res) => {
      const occurrences = await withScheduler(deps, (s) => s.occurrences(SHOWN_OCCURRENCES));
      res.json({
        schedules: (await listSchedules(deps.db)).map((s) => scheduleView(s, occurrences)),
        roles: deps.config.roles.map((x) => x.id),
        timezone_default: 'UTC',
      });
    });

    r.post('/', async (req, res) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      const name = str(b.name) ?? '';
      const cron = str(b.cron) ?? '';
      const kind = b.kind === 'chain' ? 'chain' : b.kind === 'skill' ? 'skill' : undefined;
      const target = str(b.target) ?? '';
      if (!name || !cron || !kind || !target) return fail(res, 400, 'refused', '请填写名称、cron 表达式、类型（技能或链）和目标。');
      const input = b.input === undefined || b.input === null ? {} : b.input;
      if (typeof input !== 'object' || Array.isArray(input)) return fail(res, 400, 'refused', '输入必须是 JSON 对象。');
      const roleId = str(b.role) ?? deps.defaultRoleId;
      if (!roleOf(deps, roleId)) return fail(res, 400, 'unknown_role', `没有角色「${roleId}」。`);
      if (kind === 'skill' && !deps.services.registry.resolveTool(target))
        return fail(res, 400, 'refused', `没有名为「${target}」的技能。`);
      if (kind === 'chain' && !(await getChain(deps.db, target))) return fail(res, 400, 'refused', `没有已保存的链「${target}」。`);
      const deliverTo = typeof b.deliver_to === 'string' ? b.deliver_to.trim() : '';
      const timezone = str(b.timezone) ?? 'UTC';
      const missed = (str(b.missed) ?? 'once') as MissedPolicy;
      if (!MISSED_POLICIES.includes(missed))
        return fail(res, 400, 'refused', `错过的运行（missed）只能是 ${MISSED_POLICIES.join(' / ')}。`);
      try {
        await withScheduler(deps, (s) =>
          s.add({
            name,
            cron,
            timezone,
            kind,
            target,
            input: input as Record<string, unknown>,
            deliver_to: deliverTo,
            role_id: roleId,
            missed,
          }),
        );
      } catch (err) {
        if (err instanceof ScheduleError) return fail(res, 400, 'refused', `定时任务未保存：${err.message}`);
        throw err;
      }
      deps.log.info({ admin: adminOfSafe(res), schedule: name, kind, target }, 'admin console: schedule saved');
      const stored = await getSchedule(deps.db, name);
      res.json({
        schedule: stored ? scheduleView(stored, await withScheduler(deps, (s) => s.occurrences(SHOWN_OCCURRENCES, name))) : null,
      });
    });

    r.delete('/:name', async (req, res) => {
      const name = req.params.name;
      const existed = await withScheduler(deps, (s) => s.remove(name));
      if (!existed) return fail(res, 404, 'not_found', `没有定时任务「${name}」。`);
      deps.log.info({ admin: adminOfSafe(res), schedule: name }, 'admin console: schedule removed');
      res.json({ ok: true });
    });

    return r;
  },
};

/**
 * Console section `notify` (R-MSG-01; docs/messaging.md; docs/console-sections.md "Notify
 * targets"): the aliases of the built-in `notify` skill — the same `runNotifyTargetCommand` as
 * `skillgate notify target add|list|remove`.
 *
 * Apprise URLs carry credentials in every part (`tgram://<bot token>/<chat>`), so they are
 * write-only here: the list and the answer to an add show each URL masked (`tgram://***`), a
 * config key with its tag in full (a key names a stored Apprise config, it is no secret). No
 * route returns a stored URL, and none is logged.
 *
 *   GET    targets        → {targets: [{name, target}]}            (`target` masked)
 *   POST   targets {name, spec: string | string[]}                 (Apprise URLs, or one `key[:tag]`)
 *                         → {name, target}; 400 `refused` with the reason
 *   DELETE targets/:name  → {ok:true}; 404 `not_found`
 */
import express from 'express';
import { runNotifyTargetCommand } from '../../admin/notify-targets.ts';
import { fail, type AdminSection } from '../kit.ts';
import { adminOfSafe } from './directory.ts';

function specParam(v: unknown): string[] | undefined {
  if (typeof v === 'string') return v.split(/\s+/).filter((s) => s !== '');
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  return undefined;
}

/** The `notify` section. */
export const notifySection: AdminSection = {
  id: 'notify',
  title: { zh: '通知目标', en: 'Notify targets' },
  routes(deps) {
    const r = express.Router();

    r.get('/targets', async (_req, res) => {
      const done = await runNotifyTargetCommand(deps.db, { op: 'list' });
      res.json({ targets: done.ok && done.op === 'list' ? done.targets : [] });
    });

    r.post('/targets', async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const spec = specParam(body.spec);
      if (!spec || spec.length === 0)
        return fail(res, 400, 'refused', '请填写 Apprise URL（schema://…），或一个配置键（key 或 key:tag）。');
      const done = await runNotifyTargetCommand(deps.db, { op: 'add', name: typeof body.name === 'string' ? body.name : '', spec });
      if (!done.ok) return fail(res, 400, 'refused', `通知目标未保存：${done.error}`);
      if (done.op !== 'add') throw new Error('unexpected notify target result');
      deps.log.info({ admin: adminOfSafe(res), name: done.name }, 'admin console: notify target saved');
      res.json({ name: done.name, target: done.target });
    });

    r.delete('/targets/:name', async (req, res) => {
      const done = await runNotifyTargetCommand(deps.db, { op: 'remove', name: req.params.name });
      if (!done.ok) return fail(res, 404, 'not_found', `没有通知目标「${req.params.name}」。`);
      deps.log.info({ admin: adminOfSafe(res), name: req.params.name }, 'admin console: notify target removed');
      res.json({ ok: true });
    });

    return r;
  },
};

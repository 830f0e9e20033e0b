/**
 * Console section `inbox`: quarantined inbound events — a turn that failed (or outlived its
 * lease) the inbox's maximum number of times — newest first, with the last error; retry (run
 * again, attempts reset, workers woken) and discard (kept as `discarded`, never run).
 * src/inbox/admin.ts; docs/console.md "Quarantined events".
 *
 *   GET  ?status=failed|discarded&before=<id>&limit=<n>   {counts: {status: n}, items: QuarantinedEvent[]}
 *   POST :id/retry                                        {ok: true} | 404 not_quarantined
 *   POST :id/discard                                      {ok: true} | 404 not_quarantined
 */
import express from 'express';
import { countInboxByStatus, discardQuarantined, listQuarantined, retryQuarantined } from '../../inbox/index.ts';
import { adminOf, fail, str, type AdminDeps, type AdminSection } from '../kit.ts';

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();

  r.get('/', async (req, res) => {
    const status = req.query.status === 'discarded' ? 'discarded' : 'failed';
    const limit = Number(str(req.query.limit) ?? 50);
    const items = await listQuarantined(deps.db, { status, limit: Number.isFinite(limit) ? limit : 50, beforeId: str(req.query.before) });
    res.json({ counts: await countInboxByStatus(deps.db), items });
  });

  r.post('/:id/retry', async (req, res) => {
    if (!(await retryQuarantined(deps.db, req.params.id)))
      return fail(res, 404, 'not_quarantined', `事件 ${req.params.id} 不存在或未被隔离。`);
    deps.log.info({ inbox_id: req.params.id, by: adminOf(res).kind }, 'admin console: quarantined event queued again');
    res.json({ ok: true });
  });

  r.post('/:id/discard', async (req, res) => {
    if (!(await discardQuarantined(deps.db, req.params.id)))
      return fail(res, 404, 'not_quarantined', `事件 ${req.params.id} 不存在或未被隔离。`);
    deps.log.info({ inbox_id: req.params.id, by: adminOf(res).kind }, 'admin console: quarantined event discarded');
    res.json({ ok: true });
  });
  return r;
}

/** The `inbox` section. */
export const inboxSection: AdminSection = {
  id: 'inbox',
  title: { zh: '隔离的消息', en: 'Quarantined events' },
  routes,
};

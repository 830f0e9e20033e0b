/**
 * Console section `outbox`: failed deliveries, newest first, with the platform's error; retry
 * (back to the queue, attempts reset, delivery woken) and discard (kept as `discarded`, never
 * sent). See src/outbox/admin.ts; docs/console.md "Failed deliveries".
 *
 *   GET  ?status=failed|discarded&before=<id>&limit=<n>   {counts: {status: n}, items: FailedDelivery[]}
 *   POST :id/retry                                        {ok: true} | 404 not_failed
 *   POST :id/discard                                      {ok: true} | 404 not_failed
 */
import express from 'express';
import { countByStatus, discardFailedDelivery, listFailedDeliveries, retryFailedDelivery } from '../../outbox/index.ts';
import { adminOf, fail, str, type AdminDeps, type AdminSection } from '../kit.ts';

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();

  r.get('/', async (req, res) => {
    const status = req.query.status === 'discarded' ? 'discarded' : 'failed';
    const limit = Number(str(req.query.limit) ?? 50);
    const items = await listFailedDeliveries(deps.db, {
      status,
      limit: Number.isFinite(limit) ? limit : 50,
      beforeId: str(req.query.before),
    });
    res.json({ counts: await countByStatus(deps.db), items });
  });

  r.post('/:id/retry', async (req, res) => {
    if (!(await retryFailedDelivery(deps.db, req.params.id)))
      return fail(res, 404, 'not_failed', `消息 ${req.params.id} 不存在或不是发送失败状态。`);
    deps.log.info({ outbox_id: req.params.id, by: adminOf(res).kind }, 'admin console: failed delivery queued again');
    res.json({ ok: true });
  });

  r.post('/:id/discard', async (req, res) => {
    if (!(await discardFailedDelivery(deps.db, req.params.id)))
      return fail(res, 404, 'not_failed', `消息 ${req.params.id} 不存在或不是发送失败状态。`);
    deps.log.info({ outbox_id: req.params.id, by: adminOf(res).kind }, 'admin console: failed delivery discarded');
    res.json({ ok: true });
  });
  return r;
}

/** The `outbox` section. */
export const outboxSection: AdminSection = {
  id: 'outbox',
  title: { zh: '发送失败', en: 'Failed deliveries' },
  routes,
};

/**
 * Console section `audit`: the audit log (§6; src/audit/store.ts; docs/audit.md,
 * docs/console.md "Audit log"). Newest first, filters combined with AND.
 *
 *   GET ?role=&skill=&actor=<actor_emp_no>&since=<ISO date/time>&page=<0…>&size=<1…100>
 *       → {items: AuditRow[], page, size, has_more}
 *
 * Paging reads the newest AUDIT_MAX_LIMIT (1000) matching rows: narrow the filters (`since`,
 * a skill, an actor) to reach older ones, or use `skillgate audit`.
 */
import express from 'express';
import { AUDIT_MAX_LIMIT, queryAudit } from '../../audit/store.ts';
import { fail, str, type AdminDeps, type AdminSection } from '../kit.ts';

/** Largest page size. */
export const AUDIT_PAGE_MAX = 100;

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();
  r.get('/', async (req, res) => {
    const size = Math.min(AUDIT_PAGE_MAX, Math.max(1, Math.floor(Number(str(req.query.size) ?? 50)) || 50));
    const page = Math.max(0, Math.floor(Number(str(req.query.page) ?? 0)) || 0);
    const sinceText = str(req.query.since);
    const since = sinceText ? new Date(sinceText) : undefined;
    if (since && Number.isNaN(since.getTime())) return fail(res, 400, 'bad_since', `无法识别的时间：${sinceText}`);
    const offset = page * size;
    if (offset >= AUDIT_MAX_LIMIT) return fail(res, 400, 'page_too_far', `只能翻阅最新的 ${AUDIT_MAX_LIMIT} 条，请用筛选条件缩小范围。`);
    const rows = await queryAudit(deps.db, {
      roleId: str(req.query.role),
      skill: str(req.query.skill),
      actorEmpNo: str(req.query.actor),
      since,
      limit: Math.min(AUDIT_MAX_LIMIT, offset + size + 1),
    });
    res.json({ items: rows.slice(offset, offset + size), page, size, has_more: rows.length > offset + size });
  });
  return r;
}

/** The `audit` section. */
export const auditSection: AdminSection = {
  id: 'audit',
  title: { zh: '审计日志', en: 'Audit log' },
  routes,
};

import { beforeAll, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.ts';
import {
  CONFIRM_TTL_MS,
  canonicalJson,
  hashParams,
  issueConfirmToken,
  peekConfirmToken,
  redeemConfirmToken,
  type ConfirmBinding,
} from '../../src/turn/confirm-tokens.ts';
import { describeEachEngine } from '../helpers/db.ts';

const binding = (over: Partial<ConfirmBinding> = {}): ConfirmBinding => ({
  orgId: 'acme',
  roleId: 'default',
  sessionId: 's1',
  actorKey: 'web:u1',
  skill: 'datatable',
  action: 'delete_by',
  table: '00000000-0000-4000-8000-000000000001',
  params: { filters: [{ field: '部门', op: 'eq', value: '研发' }] },
  ...over,
});

it('the parameter hash ignores key order and the token itself', () => {
  expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
  expect(hashParams({ a: 1, b: 2 })).toBe(hashParams({ b: 2, a: 1, confirm_token: 'ct_x' }));
  expect(hashParams({ a: 1 })).not.toBe(hashParams({ a: 2 }));
});

describeEachEngine('confirmation service (A-29)', (db) => {
  let t0: Date;
  const at = (ms: number) => () => new Date(t0.getTime() + ms);
  beforeAll(async () => {
    await migrate(db());
    t0 = new Date('2026-03-01T10:00:00Z');
  });

  it('R-DT-88: a token redeems once with the same binding; a second use is refused as consumed', async () => {
    const { token, expiresInS } = await issueConfirmToken(db(), binding(), { now: at(0) });
    expect(token).toMatch(/^ct_[A-Za-z0-9_-]{32}$/);
    expect(expiresInS).toBe(300);
    expect(await redeemConfirmToken(db(), token, binding(), { now: at(1000) })).toEqual({ ok: true });
    expect(await redeemConfirmToken(db(), token, binding(), { now: at(2000) })).toEqual({ ok: false, reason: 'consumed' });
  });

  it('R-DT-88: valid at 4:59, refused at 5:00 and later (injectable clock)', async () => {
    const a = await issueConfirmToken(db(), binding(), { now: at(0) });
    expect(await redeemConfirmToken(db(), a.token, binding(), { now: at(CONFIRM_TTL_MS - 1000) })).toEqual({ ok: true });
    const b = await issueConfirmToken(db(), binding(), { now: at(0) });
    expect(await redeemConfirmToken(db(), b.token, binding(), { now: at(CONFIRM_TTL_MS) })).toEqual({ ok: false, reason: 'expired' });
    expect(await redeemConfirmToken(db(), b.token, binding(), { now: at(CONFIRM_TTL_MS + 60_000) })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('different parameters are refused and the token is NOT consumed', async () => {
    const { token } = await issueConfirmToken(db(), binding(), { now: at(0) });
    const other = binding({ params: { filters: [{ field: '部门', op: 'eq', value: '销售' }] } });
    expect(await redeemConfirmToken(db(), token, other, { now: at(1) })).toEqual({ ok: false, reason: 'mismatch', mismatched: ['params'] });
    expect(await redeemConfirmToken(db(), token, binding(), { now: at(2) })).toEqual({ ok: true });
  });

  it('A-29: the token is bound to org, role, session, actor, skill, action and table', async () => {
    const { token } = await issueConfirmToken(db(), binding(), { now: at(0) });
    for (const [k, v, name] of [
      ['orgId', 'other', 'org_id'],
      ['roleId', 'r2', 'role_id'],
      ['sessionId', 's2', 'session_id'],
      ['actorKey', 'web:u2', 'actor_key'],
      ['skill', 'other_skill', 'skill'],
      ['action', 'delete_batch', 'action'],
      ['table', '00000000-0000-4000-8000-000000000002', 'table'],
    ] as const) {
      expect(await redeemConfirmToken(db(), token, binding({ [k]: v }), { now: at(1) })).toEqual({
        ok: false,
        reason: 'mismatch',
        mismatched: [name],
      });
    }
    expect(await redeemConfirmToken(db(), token, binding(), { now: at(2) })).toEqual({ ok: true });
  });

  it('an unknown token is refused; the database holds only its hash; peek shows the stored call', async () => {
    expect(await redeemConfirmToken(db(), 'ct_nope', binding(), { now: at(0) })).toEqual({ ok: false, reason: 'unknown' });
    const { token } = await issueConfirmToken(db(), binding(), {
      now: at(0),
      call: { action: 'delete_by', filters: [] },
      summary: '删除 11 行',
    });
    const { rows } = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.confirm_tokens WHERE token_hash = $1', [
      token,
    ]);
    expect(rows[0]!.n).toBe(0);
    const p = await peekConfirmToken(db(), token);
    expect(p).toMatchObject({ action: 'delete_by', summary: '删除 11 行', call: { action: 'delete_by', filters: [] }, consumed: false });
    expect(p!.expiresAt.getTime()).toBe(t0.getTime() + CONFIRM_TTL_MS);
  });

  it('single use under concurrency: of two redemptions exactly one succeeds', async () => {
    const { token } = await issueConfirmToken(db(), binding(), { now: at(0) });
    const results = await Promise.all([
      db().transaction((tx) => redeemConfirmToken(tx, token, binding(), { now: at(1) })),
      db().transaction((tx) => redeemConfirmToken(tx, token, binding(), { now: at(1) })),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('a redemption inside a rolled-back transaction leaves the token usable', async () => {
    const { token } = await issueConfirmToken(db(), binding(), { now: at(0) });
    await expect(
      db().transaction(async (tx) => {
        expect(await redeemConfirmToken(tx, token, binding(), { now: at(1) })).toEqual({ ok: true });
        throw new Error('delete failed');
      }),
    ).rejects.toThrow('delete failed');
    expect(await redeemConfirmToken(db(), token, binding(), { now: at(2) })).toEqual({ ok: true });
  });
});

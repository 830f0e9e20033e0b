/**
 * The audit log: a test conversation through the real turn pipeline leaves
 * one row per skill call — with role, channel, actor, skill, action, outcome, duration, the
 * confirm token's hash — and no secret value anywhere in the table.
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { paramsHash } from '../../src/audit/entry.ts';
import { queryAudit } from '../../src/audit/store.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { importDirectory } from '../../src/identity/index.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import type { Db } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeTurnHarness, type TurnHarness } from '../turn/helpers.ts';
import { looseRequest } from '../helpers/request.ts';

export const AUDIT_FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

const STORED_SECRET = 'STORED-sk-7f3a9c21e4';
const PASSED_SECRET = 'PASSED-sk-55d0b8aa19';
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const text = (ms: { text: string }[]): string => ms.map((m) => m.text).join('\n');

/** Every column of every audit row as text. */
async function auditTableText(db: Db): Promise<string> {
  const { rows } = await db.query<{ t: string }>('SELECT row_to_json(a)::text AS t FROM skillgate.audit_log a');
  return rows.map((r) => r.t).join('\n');
}

describeEachEngine('audit log of a conversation', (db) => {
  let h: TurnHarness;
  let confirmToken = '';
  let probeReply = '';

  beforeAll(async () => {
    h = await makeTurnHarness(db(), { channel: 'telegram', skillRoots: [{ dir: AUDIT_FIXTURES, source: 'shared' }] });
    const report = await importDirectory(db(), {
      channels: BUILD_DIRECTORY_CHANNELS,
      orgId: 'demo',
      roleId: 'default',
      format: 'json',
      data: JSON.stringify({ contacts: [{ contact_key: 'li', name: '李审计', emp_no: 'E0042', telegram: 'u-1' }] }),
    });
    expect(report.errors).toEqual([]);
    const set = await setSkillConfig(db(), h.services.secretKey, {
      roleId: 'default',
      skill: 'audit_probe',
      key: 'api_token',
      value: STORED_SECRET,
      encrypt: true,
      via: 'operator',
      logger: h.services.log,
    });
    expect(set.ok).toBe(true);

    // the conversation: a call carrying a secret, a failing call, an echo, a confirmation
    probeReply = text(await h.turn({ raw_input: `/audit_probe city=北京 api_token=${PASSED_SECRET}` }));
    await h.turn({ raw_input: '/audit_probe city=上海 fail=true' });
    await h.turn({ raw_input: '/echo_input note=hi n=2' });
    const asked = await h.turn({ raw_input: '/confirm_probe target=pump-3' });
    confirmToken = asked.find((m) => m.confirm)!.confirm!.token;
    const done = await h.turn({ kind: 'callback', raw_input: null, callback: { action: 'confirm', token: confirmToken } });
    expect(text(done)).toContain('已清空 pump-3');
  });

  it('every call of the conversation is one row, in order, with role, channel, line and actor', async () => {
    const rows = (await queryAudit(db(), {})).reverse();
    expect(rows.map((r) => r.skill)).toEqual(['audit_probe', 'audit_probe', 'echo_input', 'confirm_probe', 'confirm_probe']);
    for (const r of rows) {
      expect(r).toMatchObject({
        roleId: 'default',
        orgId: 'demo',
        channel: 'telegram',
        line: 'chat',
        actorEmpNo: 'E0042',
        actorName: '李审计',
      });
      expect(Number.isInteger(r.durationMs) && r.durationMs >= 0).toBe(true);
      expect(r.sessionId).not.toBe('');
      expect(r.paramsHash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('outcome: success, or the envelope error_type of the failing call', async () => {
    const rows = (await queryAudit(db(), {})).reverse();
    expect(rows.map((r) => [r.success, r.errorType])).toEqual([
      [true, null],
      [false, 'recoverable'],
      [true, null],
      [true, null],
      [true, null],
    ]);
  });

  it('the stored secret reached the skill, yet the parameter hash and summary leave it out (R-CFG-06)', async () => {
    // the skill saw the role's stored value (not the one typed in chat)
    expect(probeReply).toContain(`city=北京 token_sha256=${sha256(STORED_SECRET)}`);
    const first = (await queryAudit(db(), { skill: 'audit_probe' })).at(-1)!;
    expect(first.paramKeys).toEqual(['city']);
    expect(first.paramsHash).toBe(paramsHash(h.services.secretKey, { city: '北京' }));
    const second = (await queryAudit(db(), { skill: 'audit_probe' }))[0]!;
    expect(second.paramKeys).toEqual(['city', 'fail']);
  });

  it('the confirmed call records the token only as its SHA-256, the same digest the confirmation service keeps', async () => {
    const rows = (await queryAudit(db(), { skill: 'confirm_probe' })).reverse();
    expect(rows[0]!.confirmTokenHash).toBeNull();
    expect(rows[1]!.confirmTokenHash).toBe(sha256(confirmToken));
    const issued = await db().query('SELECT 1 FROM skillgate.confirm_tokens WHERE token_hash = $1', [rows[1]!.confirmTokenHash]);
    expect(issued.rowCount).toBe(1);
  });

  it('no secret value appears in any column of the audit table: stored secret, passed secret, confirm token', async () => {
    const all = await auditTableText(db());
    expect(all).toContain('audit_probe');
    for (const secret of [STORED_SECRET, PASSED_SECRET, confirmToken]) expect(all).not.toContain(secret);
    // nor their plain SHA-256 (a plain hash of a secret could be checked against a guess)
    expect(all).not.toContain(sha256(STORED_SECRET));
    expect(all).not.toContain(sha256(PASSED_SECRET));
  });

  it('filters: role, skill, actor, since and limit', async () => {
    expect(await queryAudit(db(), { roleId: 'other' })).toEqual([]);
    expect((await queryAudit(db(), { skill: 'echo_input' })).map((r) => r.skill)).toEqual(['echo_input']);
    expect(await queryAudit(db(), { actorEmpNo: 'E0042' })).toHaveLength(5);
    expect(await queryAudit(db(), { actorEmpNo: 'E9999' })).toEqual([]);
    expect(await queryAudit(db(), { since: new Date(Date.now() + 3_600_000) })).toEqual([]);
    const two = await queryAudit(db(), { limit: 2 });
    expect(two.map((r) => r.skill)).toEqual(['confirm_probe', 'confirm_probe']);
  });

  it('an audit write that fails is logged and never fails the call', async () => {
    const failing = new Proxy(db(), {
      get(target, prop, receiver) {
        if (prop === 'query') {
          return (sql: string, values?: readonly unknown[]) =>
            sql.includes('skillgate.audit_log') ? Promise.reject(new Error('audit table unavailable')) : target.query(sql, values);
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const warnings: string[] = [];
    const log = new Proxy(h.services.log, {
      get(target, prop, receiver) {
        if (prop === 'warn') return (_o: unknown, msg: string) => void warnings.push(msg);
        return Reflect.get(target, prop, receiver);
      },
    });
    const before = (await queryAudit(db(), { limit: 1000 })).length;
    const env = await runSkill(
      { ...h.services, db: failing, log },
      looseRequest({
        skill: 'echo_input',
        input: { note: 'x' },
        defaults: {
          org_id: 'demo',
          role_id: 'default',
          session_id: 'audit-fail',
          channel: 'cli',
          chat_mode: false,
          allow_sql: false,
          team_role: 'member',
          is_admin: false,
        },
        line: 'cli',
      }),
    );
    expect(env.success).not.toBe(false);
    expect(warnings).toContain('audit log: the call could not be recorded');
    expect((await queryAudit(db(), { limit: 1000 })).length).toBe(before);
  });
});

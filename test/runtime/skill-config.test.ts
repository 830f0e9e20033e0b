import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { decryptSecret, encryptSecret, SecretDecryptError } from '../../src/runtime/crypto.ts';
import {
  configKeyProblem,
  deleteSkillConfig,
  getSkillConfig,
  listSkillConfig,
  normalizeConfigKey,
  secretEnvFor,
  setSkillConfig,
} from '../../src/runtime/skill-config.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 9);

function capture(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => out };
}

/** A logger that drops everything (the process logger would write to stderr). */
const quiet = createLogger({ destination: capture().stream, level: 'silent' });

describe('parameter names (R-CFG-03, A-45)', () => {
  it('R-CFG-03: --api-token is normalised to api_token; case is kept', () => {
    expect(normalizeConfigKey('--api-token')).toBe('api_token');
    expect(normalizeConfigKey('  -base-url ')).toBe('base_url');
    expect(normalizeConfigKey('--API-TOKEN')).toBe('API_TOKEN');
    expect(normalizeConfigKey('city')).toBe('city');
  });

  it('A-45: names colliding with context keys, `_` names and non-identifiers are refused', () => {
    expect(configKeyProblem('org_id')).toBe('reserved_key');
    expect(configKeyProblem('channel')).toBe('reserved_key');
    expect(configKeyProblem('emp_no')).toBe('reserved_key');
    expect(configKeyProblem('_meta')).toBe('reserved_key');
    expect(configKeyProblem('a b')).toBe('invalid_key');
    expect(configKeyProblem('')).toBe('invalid_key');
    expect(configKeyProblem('9lives')).toBe('invalid_key');
    expect(configKeyProblem('api_token')).toBeNull();
  });
});

describe('encryption at rest (R-CFG-05)', () => {
  it('R-CFG-05: AES-256-GCM round trip; a different key or associated data is a clear error, never garbage', () => {
    const stored = encryptSecret(KEY, 'tok-秘密', 'row-a');
    expect(stored).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
    expect(stored).not.toContain('tok');
    expect(encryptSecret(KEY, 'tok-秘密', 'row-a')).not.toBe(stored); // random IV
    expect(decryptSecret(KEY, stored, 'row-a')).toBe('tok-秘密');
    expect(() => decryptSecret(OTHER_KEY, stored, 'row-a')).toThrow(SecretDecryptError);
    expect(() => decryptSecret(OTHER_KEY, stored, 'row-a')).toThrow(/secret key .* differs/);
    expect(() => decryptSecret(KEY, stored, 'row-b')).toThrow(SecretDecryptError);
    const [v, iv, tag, ct] = stored.split(':');
    const flipped = Buffer.from(ct!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => decryptSecret(KEY, [v, iv, tag, flipped.toString('base64')].join(':'), 'row-a')).toThrow(SecretDecryptError);
    expect(() => decryptSecret(KEY, 'plain text', 'row-a')).toThrow(SecretDecryptError);
    expect(() => encryptSecret(Buffer.alloc(16), 'x')).toThrow(TypeError);
  });
});

describe('secretEnvFor (R-SUB-07, R-CFG-09)', () => {
  it('R-CFG-09: each secret-named value under its name and its upper-case form; other values are not exported', () => {
    expect(secretEnvFor({ api_token: 'T', city: 'Paris', MY_AUTH_HEADER: 'H', 'bad-name_key': 'x' })).toEqual({
      api_token: 'T',
      API_TOKEN: 'T',
      MY_AUTH_HEADER: 'H',
    });
    expect(secretEnvFor({ region: 'eu' }, ['region'])).toEqual({ region: 'eu', REGION: 'eu' });
    expect(secretEnvFor({ api_key: 'a\u0000b' })).toEqual({});
  });
});

describeEachEngine('skill parameters store', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('R-CFG-01: parameters are isolated per role (role A token invisible to role B)', async () => {
    expect(
      await setSkillConfig(db(), KEY, {
        roleId: 'roleA',
        skill: 'weather',
        key: 'api_token',
        value: 'A-TOKEN',
        via: 'operator',
        logger: quiet,
      }),
    ).toEqual({
      ok: true,
      key: 'api_token',
      encrypted: true,
    });
    await setSkillConfig(db(), KEY, { roleId: 'roleA', skill: 'weather', key: 'city', value: 'Paris', via: 'operator', logger: quiet });
    await setSkillConfig(db(), KEY, { roleId: 'roleB', skill: 'weather', key: 'city', value: 'Oslo', via: 'operator', logger: quiet });
    expect(await getSkillConfig(db(), KEY, 'roleA', 'weather', { logger: quiet })).toEqual({ api_token: 'A-TOKEN', city: 'Paris' });
    expect(await getSkillConfig(db(), KEY, 'roleB', 'weather', { logger: quiet })).toEqual({ city: 'Oslo' });
    expect(await getSkillConfig(db(), KEY, 'roleA', 'other', { logger: quiet })).toEqual({});
  });

  it('R-CFG-03: a value saved as --api-token is read back as api_token and replaces the earlier one', async () => {
    const r = await setSkillConfig(db(), KEY, {
      roleId: 'r3',
      skill: 's',
      key: '--api-token',
      value: ' v1 \n',
      via: 'operator',
      logger: quiet,
    });
    expect(r).toEqual({ ok: true, key: 'api_token', encrypted: true });
    await setSkillConfig(db(), KEY, { roleId: 'r3', skill: 's', key: 'api-token', value: 'v2', via: 'operator', logger: quiet });
    expect(await getSkillConfig(db(), KEY, 'r3', 's', { logger: quiet })).toEqual({ api_token: 'v2' });
  });

  it('R-CFG-05: a secret-named value is encrypted at rest (substring match: my_auth_header); plain values are not', async () => {
    await setSkillConfig(db(), KEY, {
      roleId: 'r4',
      skill: 's',
      key: 'my_auth_header',
      value: 'PLAINTEXT-AUTH-123',
      via: 'operator',
      logger: quiet,
    });
    await setSkillConfig(db(), KEY, { roleId: 'r4', skill: 's', key: 'city', value: 'Lyon', via: 'operator', logger: quiet });
    const { rows } = await db().query<{ key: string; value: string; encrypted: boolean }>(
      'SELECT key, value, encrypted FROM skillgate.skill_config WHERE role_id = $1 ORDER BY key',
      ['r4'],
    );
    const auth = rows.find((r) => r.key === 'my_auth_header')!;
    expect(auth.encrypted).toBe(true);
    expect(auth.value).not.toContain('PLAINTEXT-AUTH-123');
    expect(auth.value).toMatch(/^v1:/);
    expect(rows.find((r) => r.key === 'city')).toMatchObject({ value: 'Lyon', encrypted: false });
    const listed = await listSkillConfig(db(), 'r4', 's');
    expect(listed.map((e) => [e.key, e.value, e.encrypted])).toEqual([
      ['city', 'Lyon', false],
      ['my_auth_header', null, true],
    ]);
  });

  it('R-CFG-05: reading with a wrong key is a clear error, never garbage', async () => {
    await setSkillConfig(db(), KEY, { roleId: 'r5', skill: 's', key: 'api_key', value: 'K5', via: 'operator', logger: quiet });
    await expect(getSkillConfig(db(), OTHER_KEY, 'r5', 's', { logger: quiet })).rejects.toThrow(SecretDecryptError);
  });

  it('R-CFG-05: an encrypted value copied into another role row does not decrypt there', async () => {
    await setSkillConfig(db(), KEY, { roleId: 'r6a', skill: 's', key: 'api_key', value: 'K6', via: 'operator', logger: quiet });
    await db().query(
      `INSERT INTO skillgate.skill_config (role_id, skill, key, value, encrypted)
       SELECT 'r6b', skill, key, value, encrypted FROM skillgate.skill_config WHERE role_id = 'r6a'`,
    );
    await expect(getSkillConfig(db(), KEY, 'r6b', 's', { logger: quiet })).rejects.toThrow(SecretDecryptError);
  });

  it("R-CFG-08 / A-46: in chat a secret is saved only when its trimmed value appears in this turn's raw_input", async () => {
    const refused = await setSkillConfig(db(), KEY, {
      roleId: 'r7',
      skill: 'weather',
      key: 'api_token',
      value: 'sk-live-999',
      rawInput: '请帮我配置天气的 token',
      via: 'chat',
      logger: quiet,
    });
    expect(refused).toMatchObject({ ok: false, code: 'secret_not_in_message', need_param: 'api_token' });
    if (!refused.ok) {
      expect(refused.user_message).toMatch(/凭证/);
      expect(refused.error).not.toContain('sk-live-999');
    }
    const en = await setSkillConfig(db(), KEY, {
      roleId: 'r7',
      skill: 'weather',
      key: 'api_token',
      value: 'x',
      via: 'chat',
      lang: 'en',
      logger: quiet,
    });
    expect(en.ok === false && en.user_message).toMatch(/credential "api_token"/);
    expect(await getSkillConfig(db(), KEY, 'r7', 'weather', { logger: quiet })).toEqual({});

    const accepted = await setSkillConfig(db(), KEY, {
      roleId: 'r7',
      skill: 'weather',
      key: 'api_token',
      value: '  sk-live-999 ',
      rawInput: '我的 token 是 sk-live-999 谢谢',
      via: 'chat',
      logger: quiet,
    });
    expect(accepted).toEqual({ ok: true, key: 'api_token', encrypted: true });
    expect(await getSkillConfig(db(), KEY, 'r7', 'weather', { logger: quiet })).toEqual({ api_token: 'sk-live-999' });
    // A non-secret parameter is not subject to the rule.
    const plain = await setSkillConfig(db(), KEY, {
      roleId: 'r7',
      skill: 'weather',
      key: 'city',
      value: 'Rome',
      rawInput: '',
      via: 'chat',
      logger: quiet,
    });
    expect(plain.ok).toBe(true);
  });

  it('A-45: a name colliding with a context key is refused at save and nothing is stored', async () => {
    const r = await setSkillConfig(db(), KEY, { roleId: 'r8', skill: 's', key: 'org_id', value: 'evil', via: 'operator', logger: quiet });
    expect(r).toMatchObject({ ok: false, code: 'reserved_key', error_type: 'recoverable' });
    const empty = await setSkillConfig(db(), KEY, {
      roleId: 'r8',
      skill: 's',
      key: 'api_token',
      value: '  ',
      via: 'operator',
      logger: quiet,
    });
    expect(empty).toMatchObject({ ok: false, code: 'empty_value' });
    expect(await listSkillConfig(db(), 'r8', 's')).toEqual([]);
  });

  it('deleteSkillConfig removes one parameter or all of a skill for the role only', async () => {
    for (const [role, key] of [
      ['r9', 'a'],
      ['r9', 'b'],
      ['r9x', 'a'],
    ] as const) {
      await setSkillConfig(db(), KEY, { roleId: role, skill: 's', key, value: 'v', via: 'operator', logger: quiet });
    }
    expect(await deleteSkillConfig(db(), 'r9', 's', 'a')).toBe(1);
    expect(Object.keys(await getSkillConfig(db(), KEY, 'r9', 's', { logger: quiet }))).toEqual(['b']);
    expect(await deleteSkillConfig(db(), 'r9', 's')).toBe(1);
    expect(await getSkillConfig(db(), KEY, 'r9x', 's', { logger: quiet })).toEqual({ a: 'v' });
  });

  it('R-CFG-10: secrets never reach the log — set, refusal and get are logged without the value', async () => {
    const { stream, text } = capture();
    const logger = createLogger({ destination: stream, level: 'debug' });
    const SECRET = 'sk-NEVER-LOG-4242';
    await setSkillConfig(db(), KEY, { roleId: 'r10', skill: 'mail', key: 'smtp_password', value: SECRET, via: 'operator', logger });
    await setSkillConfig(db(), KEY, { roleId: 'r10', skill: 'mail', key: 'api_token', value: SECRET, rawInput: 'no', via: 'chat', logger });
    expect(await getSkillConfig(db(), KEY, 'r10', 'mail', { logger })).toEqual({ smtp_password: SECRET });
    const out = text();
    expect(out).toContain('smtp_password'); // the lines exist and name the parameter
    expect(out).toContain('secret_not_in_message');
    expect(out).toContain('skill parameters read');
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('NEVER-LOG');
  });
});

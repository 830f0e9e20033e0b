import { describe, expect, it } from 'vitest';
import { detectSecretParams, isSecretName, SECRET_SUBSTRINGS, secretParamsOf } from '../../src/registry/secrets.ts';

describe('secret detection (R-CFG-05..07, D-20)', () => {
  it('R-CFG-05: the default list is key/token/secret/password/credential/auth', () => {
    expect([...SECRET_SUBSTRINGS]).toEqual(['key', 'token', 'secret', 'password', 'credential', 'auth']);
  });

  it('R-CFG-05/R-CFG-07: substring, case-insensitive: api_token, AUTH_HEADERS, PARAM_KEYS, my_auth_header', () => {
    for (const n of ['api_token', 'AUTH_HEADERS', 'PARAM_KEYS', 'my_auth_header', 'DB_Password', 'clientSecret', 'credentials'])
      expect(isSecretName(n), n).toBe(true);
    for (const n of ['query', 'symbol', 'limit', 'pin']) expect(isSecretName(n), n).toBe(false);
  });

  it('D-20: over-matching is kept (author, keyword, tokenizer) and the list is configurable', () => {
    expect(isSecretName('author')).toBe(true);
    expect(isSecretName('keyword')).toBe(true);
    expect(isSecretName('tokenizer')).toBe(true);
    expect(isSecretName('author', ['password'])).toBe(false);
    expect(isSecretName('PIN_code', ['pin'])).toBe(true);
  });

  it('only top-level properties; x-secret false opts out, true opts in', () => {
    const schema = {
      type: 'object',
      properties: {
        api_token: { type: 'string' },
        AUTH_HEADERS: { type: 'object' },
        keyword: { type: 'string', 'x-secret': false },
        pin: { type: 'string', 'x-secret': true },
        query: { type: 'string' },
        nested: { type: 'object', properties: { api_key: { type: 'string' } } },
      },
    };
    expect(detectSecretParams(schema)).toEqual(['api_token', 'AUTH_HEADERS', 'pin']);
    expect(detectSecretParams(schema, ['query'])).toEqual(['pin', 'query']);
    expect(detectSecretParams({ type: 'object' })).toEqual([]);
  });

  it('R-CFG-06: secretParamsOf answers each schema object with its own names, frozen', () => {
    const a = { type: 'object', properties: { api_token: {}, q: {} } };
    const b = { type: 'object', properties: { password: {}, q: { 'x-secret': true } } };
    expect(secretParamsOf(a)).toEqual(['api_token']);
    expect(secretParamsOf(b)).toEqual(['password', 'q']);
    expect(secretParamsOf(a)).toBe(secretParamsOf(a));
    expect(Object.isFrozen(secretParamsOf(b))).toBe(true);
    expect(secretParamsOf({ type: 'object' })).toEqual([]);
  });
});

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets, REDACTED } from '../../src/log/logger.ts';
import { SecretValues } from '../../src/log/secret-values.ts';

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

describe('logging redacts secrets by known field name and by value', () => {
  it('values under secret-named keys never reach the log line, at any depth', () => {
    const { stream, text } = capture();
    const log = createLogger({ destination: stream, level: 'info' });
    log.info(
      {
        api_token: 'tok-AAA',
        nested: { FEISHU_APP_SECRET: 'sec-BBB', list: [{ password: 'pw-CCC' }], plain: 'visible-DDD' },
        Authorization: 'Bearer EEE',
      },
      'calling',
    );
    const line = text();
    for (const s of ['tok-AAA', 'sec-BBB', 'pw-CCC', 'Bearer EEE']) expect(line).not.toContain(s);
    expect(line).toContain('visible-DDD');
    expect(JSON.parse(line).nested.FEISHU_APP_SECRET).toBe(REDACTED);
  });

  it('redactSecrets leaves non-secret keys and empty values alone', () => {
    expect(redactSecrets({ name: 'a', token: '', count: 2 })).toEqual({ name: 'a', token: '', count: 2 });
  });

  it('ordinary fields whose names merely contain "key", "auth" or "token" log as themselves', () => {
    const { stream, text } = capture();
    const log = createLogger({ destination: stream, level: 'info', secrets: new SecretValues() });
    log.info({ chat_key: 'telegram:default:42', author: 'Ann', token_count: 7, session_key: 's1' }, 'turn');
    const line = JSON.parse(text());
    expect(line.chat_key).toBe('telegram:default:42');
    expect(line.author).toBe('Ann');
    expect(line.token_count).toBe(7);
    expect(line.session_key).toBe('s1');
  });

  it('a configured secret value is scrubbed wherever it appears: message, error text, inside a URL', () => {
    const { stream, text } = capture();
    const secrets = new SecretValues();
    secrets.add('123456:AAE-bot-token/x+y');
    const log = createLogger({ destination: stream, level: 'info', secrets });
    const url = `https://api.telegram.org/bot${encodeURIComponent('123456:AAE-bot-token/x+y')}/sendMessage`;
    log.warn(
      { err: new Error(`fetch failed: ${url}`), raw_url: 'https://h/bot123456:AAE-bot-token/x+y/getMe' },
      'send failed at 123456:AAE-bot-token/x+y',
    );
    const out = text();
    expect(out).not.toContain('AAE-bot-token');
    expect(out).toContain(REDACTED);
    expect(out).toContain('sendMessage');
  });
});

describe('SecretValues.mayHold: the JSON text check before a scrub', () => {
  const values = [
    { text: 'nothing here', n: [1, 2] },
    { text: 'token sk-LIVE-1234567 inside' },
    { deep: { list: ['a', 'pre sk-LIVE-1234567'] } },
    { text: 'quoted "se\\cret-ü" value' },
    { url: 'https://x.test/?k=sk-LIVE-1234567' },
    { whole: '  abc  ' },
    { whole: 'abcd' },
  ];

  it('is false exactly when scrubValues would change nothing, for long and short values', () => {
    const s = new SecretValues();
    s.add('sk-LIVE-1234567', 'se\\cret-ü', 'abc');
    const changed = values.map((v) => JSON.stringify(s.scrubValues(v)) !== JSON.stringify(v));
    const maybe = values.map((v) => s.mayHold(JSON.stringify(v)));
    expect(changed).toEqual([false, true, true, true, true, true, false]);
    // never a miss; the one "maybe" without a change is a short value inside a longer text
    expect(maybe).toEqual([false, true, true, true, true, true, true]);
  });

  it('sees a value added after an earlier check', () => {
    const s = new SecretValues();
    s.add('first-secret-1');
    const v = JSON.stringify({ text: 'has later-secret-2' });
    expect(s.mayHold(v)).toBe(false);
    s.add('later-secret-2');
    expect(s.mayHold(v)).toBe(true);
    s.add('xyz');
    expect(s.mayHold(JSON.stringify({ t: 'xyz' }))).toBe(true);
  });
});

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets, REDACTED } from '../../src/log/logger.ts';

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

describe('logging redacts secrets by key pattern (R-CFG-10)', () => {
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
});

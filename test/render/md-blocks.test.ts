import { describe, expect, it } from 'vitest';
import { codeLang, fenceFor, fencedBlock, quoteBlocks, simpleCodeSpan } from '../../src/channel/render/md-blocks.ts';

describe('shared markdown blocks (one code-fence helper for Discord, Feishu, DingTalk)', () => {
  it('a fence is at least three backticks and longer than any backtick run inside', () => {
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('a `` b')).toBe('```');
    expect(fenceFor('x ``` y')).toBe('````');
    expect(fenceFor('`````')).toBe('``````');
  });

  it('a fenced block drops one trailing newline and keeps the language word only', () => {
    expect(fencedBlock('a\n', codeLang('ts {.x}'))).toBe('```ts\na\n```');
    expect(fencedBlock('```\n')).toBe('````\n```\n````');
    expect(codeLang('')).toBe('');
  });

  it('code spans and quotes', () => {
    expect(simpleCodeSpan('a')).toBe('`a`');
    expect(simpleCodeSpan('a`b')).toBe('`` a`b ``');
    expect(quoteBlocks(['a', 'b\nc'])).toBe('> a\n>\n> b\n> c');
  });
});

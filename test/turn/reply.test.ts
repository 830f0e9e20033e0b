import { describe, expect, it, vi } from 'vitest';
import { REPLY_MAX_PARTS } from '../../src/channel/long-reply.ts';
import type { AdapterCapabilities } from '../../src/channel/types.ts';
import type { Envelope } from '../../src/envelope/types.ts';
import type { ToolInvocation } from '../../src/turn/planner.ts';
import { composeReply, modelView, type ComposeArgs } from '../../src/turn/reply/index.ts';

const RICH: AdapterCapabilities = { display: 'rich', buttons: true, max_length: 16000, length_unit: 'chars', typing: false, media: true };
const TEXT: AdapterCapabilities = { display: 'text', buttons: false, max_length: 2048, length_unit: 'bytes', typing: false, media: false };
const NOW = new Date('2025-01-15T08:02:10.000Z');

function inv(envelope: Envelope, tool = 'skill'): ToolInvocation {
  return { tool, args: {}, envelope };
}

function compose(p: Partial<ComposeArgs> & { invocations: ToolInvocation[] }): ReturnType<typeof composeReply> {
  return composeReply({ plannerText: '', capabilities: RICH, lang: 'zh-CN', now: () => NOW, ...p });
}

const A = '**A** 区块 1.5';
const B = '| 项 | 值 |\n|---|---|\n| x | 42 |';
const C = '- 规则 3：≤ 7 天';

describe('display rules on a rich channel (R-DISP-01..06, A-16)', () => {
  it('R-DISP-01/03: a block without display_only is appended after the planner text', () => {
    const [m] = compose({ plannerText: '模型回答', invocations: [inv({ success: true, display_md: A })] });
    expect(m!.text).toBe(`模型回答\n\n${A}`);
    expect(m!.format).toBe('markdown');
    expect(m!.display_md).toBe(A);
  });

  it('R-DISP-04: display_only replaces the planner text — reply == block exactly', () => {
    const [m] = compose({ plannerText: '模型改写过的数字 99', invocations: [inv({ success: true, display_md: B, display_only: true })] });
    expect(m!.text).toBe(B);
    expect(m!.display_md).toBe(B);
  });

  it('R-DISP-05: plain A then exclusive B ⇒ only B', () => {
    const [m] = compose({ plannerText: 'x', invocations: [inv({ display_md: A }), inv({ display_md: B, display_only: true })] });
    expect(m!.text).toBe(B);
  });

  it('A-16: plain blocks after an exclusive block are dropped', () => {
    const [m] = compose({ plannerText: 'x', invocations: [inv({ display_md: B, display_only: true }), inv({ display_md: A })] });
    expect(m!.text).toBe(B);
  });

  it('A-16: a later exclusive block replaces the earlier one (last exclusive wins)', () => {
    const [m] = compose({
      plannerText: 'x',
      invocations: [
        inv({ display_md: A }),
        inv({ display_md: B, display_only: true }),
        inv({ display_md: C, display_only: true }),
        inv({ display_md: A }),
      ],
    });
    expect(m!.text).toBe(C);
    expect(m!.display_md).toBe(C);
  });

  it('R-DISP-01: several plain blocks are appended in order', () => {
    const [m] = compose({ plannerText: 'x', invocations: [inv({ display_md: A }), inv({ display_md: C })] });
    expect(m!.text).toBe(`x\n\n${A}\n\n${C}`);
    expect(m!.display_md).toBe(`${A}\n\n${C}`);
  });

  it('R-DISP-06: artifacts still go out when display_only is true', () => {
    const msgs = compose({
      plannerText: 'x',
      invocations: [
        inv({ display_md: B, display_only: true, artifacts: [{ filename: '报表.xlsx', local_path: '/ws/报表.xlsx', media: 'file' }] }),
      ],
      mediaFor: (a) => ({ kind: a.media, path: a.local_path, filename: a.filename, file_id: 'att_1' }),
    });
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.text).toBe(B);
    expect(msgs[0]!.media).toEqual([{ kind: 'file', path: '/ws/报表.xlsx', filename: '报表.xlsx', file_id: 'att_1' }]);
    expect(msgs[0]!.final).toBe(true);
  });
});

describe('display rules on a text channel (D-22, R-DISP-02)', () => {
  it('no model: the same selection as a faithful plain rendering (numbers and list items verbatim)', () => {
    const [m] = compose({
      capabilities: TEXT,
      plannerText: '忽略我',
      invocations: [inv({ display_md: A }), inv({ display_md: `${B}\n\n${C}`, display_only: true })],
    });
    expect(m!.format).toBe('plain');
    expect(m!.text).toBe('项 | 值\n---+---\nx  | 42\n\n• 规则 3：≤ 7 天');
    expect(m!.text).not.toContain('忽略我');
    expect(m!.display_md).toBeUndefined();
  });

  it('A-16 on a text channel: plain then exclusive keeps only the exclusive block', () => {
    const [m] = compose({
      capabilities: TEXT,
      plannerText: 'x',
      invocations: [inv({ display_md: A }), inv({ display_md: C, display_only: true })],
    });
    expect(m!.text).toBe('• 规则 3：≤ 7 天');
  });

  it('paraphrased by a model: only the planner text, rendered plain', () => {
    const [m] = compose({
      capabilities: TEXT,
      plannerText: '**共** 42 项',
      paraphrased: true,
      invocations: [inv({ display_md: B, display_only: true })],
    });
    expect(m!.text).toBe('共 42 项');
  });

  it('artifacts without media capability become a line naming each file', () => {
    const [m] = compose({
      capabilities: TEXT,
      plannerText: '好了',
      invocations: [
        inv({
          artifacts: [
            { filename: 'a_b.pdf', local_path: '/ws/a_b.pdf', media: 'file' },
            { filename: '图.png', local_path: '/ws/图.png', media: 'image' },
          ],
        }),
      ],
    });
    expect(m!.text).toBe('好了\n\n文件：a_b.pdf\n\n文件：图.png');
    expect(m!.media).toBeUndefined();
  });
});

describe('faithful rendering with no planner text (command planner)', () => {
  it('user_message first, then message/summary/result', () => {
    expect(compose({ invocations: [inv({ success: true, user_message: '已登记报修单 #12', message: 'model text' })] })[0]!.text).toBe(
      '已登记报修单 #12',
    );
    expect(compose({ invocations: [inv({ summary: '3 行' })] })[0]!.text).toBe('3 行');
    expect(compose({ invocations: [inv({ result: '42' })] })[0]!.text).toBe('42');
  });

  it('an array of records is a markdown table, ids last, booleans as words; internals never shown', () => {
    const env: Envelope = {
      success: true,
      data: [
        { id: 1, name: 'pump|3', ok: true },
        { id: 2, name: 'valve', ok: null },
      ],
      artifacts: [{ filename: 'x.csv', local_path: '/srv/data/ws/x.csv', media: 'file' }],
      error_type: 'recoverable',
      _meta: { secret: 1 },
    };
    const [m] = compose({ invocations: [inv(env)], capabilities: { ...RICH, media: false } });
    expect(m!.text).toBe('| name | ok | id |\n| --- | --- | --: |\n| pump\\|3 | 是 | 1 |\n| valve |  | 2 |\n\n文件：x\\.csv');
    expect(m!.text).not.toContain('/srv/data');
    expect(m!.text).not.toContain('error_type');
    expect(m!.text).not.toContain('secret');
  });

  it('a long list of records: the first 20 rows and how many there are, never raw JSON, no local paths', () => {
    const big = { rows: Array.from({ length: 200 }, (_, i) => ({ i, nested: { deep: 'v'.repeat(20), local_path: '/srv/secret/path' } })) };
    const [m] = compose({ invocations: [inv(big)] });
    const lines = m!.text.split('\n');
    expect(lines[0]).toBe('| i | nested |');
    expect(lines.filter((l) => l.startsWith('| ')).length).toBe(22); // header, rule, 20 rows
    expect(m!.text).toContain('| 19 |');
    expect(m!.text).not.toContain('| 20 |');
    expect(m!.text.endsWith('显示前 20 行，共 200 行。')).toBe(true);
    expect(m!.text).not.toContain('```');
    expect(m!.text).not.toContain('/srv/secret');
  });

  it("one record is a key/value list, counts a sentence, instants in the organisation's zone", () => {
    vi.stubEnv('SKILLGATE_TIMEZONE', 'Asia/Shanghai');
    try {
      const one = compose({
        invocations: [inv({ success: true, ticket: 'T-3', tags: ['a', 'b'], at: '2026-12-01T20:34:20.386Z', pageInfo: { totalRows: 1 } })],
        lang: 'en',
      })[0]!.text;
      expect(one).toBe('- **ticket**: T\\-3\n- **tags**: a, b\n- **at**: 2026\\-12\\-02 04:34:20');
      expect(compose({ invocations: [inv({ success: true, updated: 1234, failed: 0 })] })[0]!.text).toBe('更新 1,234 条，失败 0 条。');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('an empty success says done', () => {
    expect(compose({ invocations: [inv({ success: true })], lang: 'en' })[0]!.text).toBe('Done.');
  });
});

describe('failures never show a stack trace (R-OUT-03, R-OUT-10)', () => {
  const stack = 'TypeError: cannot read x\n    at handler (/srv/skills/a/handler.ts:3:1)\n    at run (/srv/x.js:1:1)';
  const py = 'Traceback (most recent call last):\n  File "/srv/h.py", line 3, in main\nKeyError: x';

  it('user_message wins (stack lines stripped)', () => {
    const [m] = compose({ invocations: [inv({ success: false, error: stack, user_message: '设备编号不存在\n    at foo (bar.js:1:1)' })] });
    expect(m!.text).toBe('设备编号不存在');
  });

  it('recoverable: 「请检查参数后重试：」 with the first line of error, unless the error is a stack trace', () => {
    expect(
      compose({ invocations: [inv({ success: false, error: 'date must be YYYY-MM-DD\nmore', error_type: 'recoverable' })] })[0]!.text,
    ).toBe('请检查参数后重试：date must be YYYY\\-MM\\-DD');
    for (const e of [stack, py]) {
      const [m] = compose({ invocations: [inv({ success: false, error: e, error_type: 'recoverable' })] });
      expect(m!.text).toBe('请检查参数后重试。');
    }
    const [raw] = compose({ invocations: [inv({ ok: false, error: stack })] });
    expect(raw!.text).toBe('操作未成功。');
    expect(raw!.text).not.toMatch(/at handler|\.ts:/);
  });

  it('transient, config, need_param, in both languages', () => {
    expect(compose({ invocations: [inv({ success: false, error: 'ECONNRESET', error_type: 'transient' })] })[0]!.text).toBe(
      '服务暂时不可用，请稍后再试',
    );
    expect(compose({ invocations: [inv({ success: false, error: 'no key', error_type: 'config' })] })[0]!.text).toBe(
      '该技能尚未配置完成，请联系管理员',
    );
    expect(compose({ invocations: [inv({ success: false, error: 'x', need_param: ['table_id', 'data'] })] })[0]!.text).toBe(
      '还需要参数：table\\_id、data',
    );
    expect(compose({ lang: 'en', invocations: [inv({ success: false, error: 'x', error_type: 'transient' })] })[0]!.text).toBe(
      'The service is temporarily unavailable, please try again later',
    );
  });

  it('on a text channel the same messages arrive plain', () => {
    const [m] = compose({ capabilities: TEXT, invocations: [inv({ success: false, error: 'bad *date*', error_type: 'recoverable' })] });
    expect(m!.text).toBe('请检查参数后重试：bad *date*');
  });
});

describe('for_user next steps (R-ACT-08)', () => {
  it('are listed for the user and never reach the model', () => {
    const env: Envelope = {
      success: true,
      user_message: '已导入 12 行',
      for_user: ['说「查看 报修表」看结果', '可以继续上传文件'],
      display_md: undefined,
    };
    const [m] = compose({ invocations: [inv(env)] });
    expect(m!.text).toBe('已导入 12 行\n\n可继续的操作：\n\n- 说「查看 报修表」看结果\n- 可以继续上传文件');
    const forModel = modelView(env);
    expect(forModel).not.toHaveProperty('for_user');
    expect(forModel.user_message).toBe('已导入 12 行');
  });

  it('a string for_user works; English label', () => {
    const [m] = compose({ lang: 'en', plannerText: 'ok', invocations: [inv({ for_user: 'upload another file' })] });
    expect(m!.text).toBe('ok\n\nNext steps:\n\n- upload another file');
  });

  it('modelView drops display fields (display_shown instead), or keeps display_md for text-channel paraphrase', () => {
    const env: Envelope = { success: true, display_md: B, display_only: true, for_user: 'x', rows: 1 };
    expect(modelView(env)).toEqual({ success: true, rows: 1, display_shown: true });
    expect(modelView(env, { keepDisplay: true })).toEqual({ success: true, rows: 1, display_md: B });
    expect(env.for_user).toBe('x'); // input untouched
  });
});

describe('confirmations', () => {
  const env: Envelope = {
    need_confirm: true,
    executed: false,
    confirm_token: 'ct_abc',
    expires_in_s: 300,
    message: 'Not executed. After the user confirms, repeat the same call…',
    user_message: '即将删除表「报修」中的 12 行（删除前会先备份）。请在 5 分钟内确认后执行。',
  };

  it('button channel: an OutboundConfirm on the last message, prompt from user_message, +expires_in_s', () => {
    const msgs = compose({ invocations: [inv(env, 'datatable')] });
    const last = msgs[msgs.length - 1]!;
    expect(last.confirm).toEqual({
      token: 'ct_abc',
      prompt_md: env.user_message,
      options: [
        { id: 'confirm', label: '确认', style: 'danger' },
        { id: 'cancel', label: '取消', style: 'secondary' },
      ],
      expires_at: '2025-01-15T08:07:10.000Z',
    });
    expect(last.final).toBe(true);
    expect(msgs.map((m) => m.text).join('')).not.toContain('repeat the same call');
  });

  it('expires_at from the envelope, else +5 minutes; English labels', () => {
    const a = compose({
      lang: 'en',
      invocations: [inv({ confirm_token: 't1', user_message: 'sure?', expires_at: '2025-01-15T09:00:00.000Z' })],
    });
    expect(a[0]!.confirm!.expires_at).toBe('2025-01-15T09:00:00.000Z');
    expect(a[0]!.confirm!.options.map((o) => o.label)).toEqual(['Confirm', 'Cancel']);
    const b = compose({ invocations: [inv({ confirm_token: 't2', message: 'sure?' })] });
    expect(b[0]!.confirm!.expires_at).toBe('2025-01-15T08:07:10.000Z');
    expect(b[0]!.confirm!.prompt_md).toBe('sure?');
  });

  it('text channel: the prompt plus 「回复「确认」继续…」, no confirm object', () => {
    const [m] = compose({ capabilities: TEXT, invocations: [inv(env, 'datatable')] });
    expect(m!.confirm).toBeUndefined();
    expect(m!.text).toBe(`${env.user_message}\n\n回复「确认」继续，回复「取消」放弃。`);
    const [en] = compose({
      capabilities: TEXT,
      lang: 'en',
      plannerText: 'Deleting 12 rows needs your OK.',
      invocations: [inv(env, 'datatable')],
    });
    expect(en!.text).toBe('Deleting 12 rows needs your OK.\n\nReply "确认" or "confirm" to proceed, "取消" or "cancel" to give up.');
  });

  it('a failed envelope with a token asks nothing', () => {
    const [m] = compose({ invocations: [inv({ success: false, confirm_token: 'ct_x', error: 'refused', error_type: 'recoverable' })] });
    expect(m!.confirm).toBeUndefined();
  });
});

describe('one message per reply (the adapter splits after rendering)', () => {
  it('a long reply is one message with reply_to, display_md, confirm, media and final', () => {
    const long = Array.from({ length: 40 }, (_, i) => `第 ${i} 段：${'内容'.repeat(20)}`).join('\n\n');
    const caps: AdapterCapabilities = { display: 'rich', buttons: true, max_length: 500, length_unit: 'utf16', typing: true, media: true };
    const msgs = compose({
      capabilities: caps,
      plannerText: long,
      replyTo: 'm1',
      invocations: [
        inv({
          confirm_token: 'ct_1',
          user_message: '确认？',
          display_md: A,
          artifacts: [{ filename: 'a.png', local_path: '/w/a.png', media: 'image' }],
        }),
      ],
    });
    expect(msgs).toHaveLength(1);
    const m = msgs[0]!;
    expect(m.reply_to).toBe('m1');
    expect(m.display_md).toBe(A);
    expect(m.confirm?.token).toBe('ct_1');
    expect(m.media).toEqual([{ kind: 'image', path: '/w/a.png', filename: 'a.png' }]);
    expect(m.final).toBe(true);
    expect(m.lang).toBe('zh-CN');
    expect(m.omitted).toBeUndefined();
    expect(m.text).toBe(`${long}\n\n${A}`);
  });

  it('a text channel gets the whole text that fits the bound in one message (WeCom 2048 bytes)', () => {
    const msgs = compose({ capabilities: TEXT, plannerText: '中'.repeat(1500), invocations: [] });
    expect(msgs).toEqual([{ kind: 'reply', text: '中'.repeat(1500), format: 'plain', reply_to: null, lang: 'zh-CN', final: true }]);
  });

  it('a reply over the bound is cut in the core with the notice, omitted recorded, no unbounded display_md', () => {
    const caps: AdapterCapabilities = { display: 'rich', buttons: true, max_length: 500, length_unit: 'utf16', typing: true, media: true };
    const huge = '一行内容\n'.repeat(10_000);
    const msgs = compose({ capabilities: caps, invocations: [inv({ display_md: huge })], lang: 'en' });
    expect(msgs).toHaveLength(1);
    const m = msgs[0]!;
    expect(m.text.length).toBeLessThanOrEqual((REPLY_MAX_PARTS - 1) * 500);
    expect(m.text).toContain('(reply too long');
    expect(m.omitted).toBeGreaterThan(huge.length - (REPLY_MAX_PARTS - 1) * 500);
    expect(m.display_md).toBeUndefined();
  });

  it('a cut reply hands its whole body to onCut; composed with that file, the notice names it and it is the last media item', () => {
    const caps: AdapterCapabilities = { display: 'rich', buttons: true, max_length: 500, length_unit: 'utf16', typing: true, media: true };
    const huge = '一行内容\n'.repeat(10_000);
    const art = { filename: 'r.csv', local_path: '/w/r.csv', media: 'file' as const };
    const args = { capabilities: caps, plannerText: '结果如下', invocations: [inv({ display_md: huge, artifacts: [art] })] };
    const seen: string[] = [];
    compose({ ...args, onCut: (t) => seen.push(t) });
    expect(seen).toEqual([`结果如下\n\n${huge}`]);
    const file = { kind: 'file' as const, path: '/w/.offload/完整回复-20250115-080210.md', filename: '完整回复-20250115-080210.md' };
    const [m] = compose({ ...args, fullText: file });
    expect(m!.text).toMatch(/省略约 \d+ 字符；全文见附件 完整回复-20250115-080210\.md）$/);
    expect(m!.full_text_file).toBe(file.filename);
    expect(m!.media?.map((x) => x.filename)).toEqual(['r.csv', file.filename]);
    expect(m!.text.length).toBeLessThanOrEqual((REPLY_MAX_PARTS - 1) * 500);
    const [en] = compose({ ...args, lang: 'en', fullText: { ...file, filename: 'full-reply-20250115-080210.md' } });
    expect(en!.text).toMatch(/left out; the full text is attached as full-reply-20250115-080210\.md\)$/);
  });

  it('without media the cut notice names the kept session file and sends nothing more; a reply that fits ignores fullText', () => {
    const file = { kind: 'file' as const, path: '/w/.offload/完整回复-1.md', filename: '完整回复-1.md' };
    const huge = '一行内容\n'.repeat(10_000);
    const [m] = compose({ capabilities: TEXT, invocations: [inv({ display_md: huge })], fullText: file });
    expect(m!.text).toMatch(/全文已保存为会话文件 完整回复-1\.md）$/);
    expect(m!.media).toBeUndefined();
    expect(m!.full_text_file).toBe(file.filename);
    const onCut = vi.fn();
    const [short] = compose({ invocations: [inv({ display_md: A })], fullText: file, onCut });
    expect(onCut).not.toHaveBeenCalled();
    expect(short!.media).toBeUndefined();
    expect(short!.full_text_file).toBeUndefined();
    expect(short!.text).toBe(A);
  });
});

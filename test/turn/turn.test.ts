/**
 * The turn pipeline: identity and access, sessions and uploads, the command
 * planner, confirmations re-invoked by the gateway, stop, progress and replies.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { getSession } from '../../src/session/sessions.ts';
import { sessionIdFor } from '../../src/turn/session-key.ts';
import { makeTurnHarness } from './helpers.ts';
import { AttachmentTooLargeError } from '../../src/channel/errors.ts';

const text = (ms: { text: string }[]): string => ms.map((m) => m.text).join('\n');

describeEachEngine('turn pipeline', (db) => {
  it('/help lists what the role can do, with examples', async () => {
    const h = await makeTurnHarness(db());
    const out = await h.turn({ raw_input: '/help' });
    const body = text(out);
    expect(body).toContain('datatable');
    expect(body).toContain('echo_input');
    expect(body).toMatch(/\/datatable\b/);
    expect(out.at(-1)!.final).toBe(true);
  });

  it('anything that is not a command gets a short answer with the closest commands, not silence', async () => {
    const h = await makeTurnHarness(db(), { capabilities: { command_buttons: true } });
    const out = await h.turn({ raw_input: '你好，能做什么？' });
    expect(text(out)).toContain('`/help`');
    expect([...text(out)].length).toBeLessThan(300);
    expect(text(out)).toContain('没有接入模型时我只听得懂命令。');
  });

  it("on a channel with native buttons the suggestions are a choice; a press shows that skill's help", async () => {
    const h = await makeTurnHarness(db());
    const out = await h.turn({ raw_input: '泵房漏水了，我要报修' });
    const confirm = out.at(-1)!.confirm!;
    expect(confirm.kind).toBe('choice');
    expect(confirm.prompt_md).toContain('没有接入模型时我只听得懂命令。');
    expect(confirm.options.map((o) => o.id)).toEqual(['1', '2', '3'].slice(0, confirm.options.length));
    const picked = confirm.options.findIndex((o) => o.label.startsWith('/repair_ticket'));
    expect(picked).toBeGreaterThanOrEqual(0);
    const help = await h.turn({ kind: 'callback', raw_input: null, callback: { action: String(picked + 1), token: confirm.token } });
    expect(text(help)).toContain('**/repair_ticket**');
    expect(text(help)).not.toContain('没有接入模型');
    // single use: a second press of the same button finds nothing
    const again = await h.turn({ kind: 'callback', raw_input: null, callback: { action: String(picked + 1), token: confirm.token } });
    expect(text(again)).not.toContain('**/repair_ticket**');
  });

  it("on a text channel the suggestions are a numbered list; replying with a number shows that skill's help", async () => {
    const h = await makeTurnHarness(db(), { capabilities: { buttons: false, display: 'text' } });
    const out = await h.turn({ raw_input: '泵房漏水了，我要报修' });
    expect(out.at(-1)!.confirm ?? null).toBeNull();
    const lines = text(out).split('\n');
    const line = lines.find((l) => /^\d\. \/repair_ticket/.test(l));
    expect(line, text(out)).toBeDefined();
    expect([...text(out)].length).toBeLessThan(300);
    const help = await h.turn({ raw_input: line!.slice(0, 1) });
    expect(text(help)).toContain('/repair_ticket');
    expect(text(help)).not.toContain('没有接入模型');
  });

  it('a command runs the skill with the actor and raw_input of the turn (R-CTX-04, R-CTX-07)', async () => {
    const h = await makeTurnHarness(db());
    const out = await h.turn({ raw_input: '/echo_input note="a b" n=3' });
    const body = text(out);
    expect(body).toContain('"note":"a b"');
    expect(body).toContain('"n":3');
    // an unknown sender's actor_name falls back to the channel nickname (R-CTX-07)
    expect(body).toContain('actor=测试用户');
    // raw_input is the user's text verbatim (R-CTX-04)
    expect(body).toContain('raw=/echo_input note="a b" n=3');
  });

  it('an upload is stored under its original name and reaches the skill as file_1 (R-FILE-06, R-CTX-05)', async () => {
    const h = await makeTurnHarness(db());
    h.adapter.files.set('k1', Buffer.from('第一行\n第二行', 'utf8'));
    await h.turn({
      raw_input: '请看附件',
      attachments: [{ type: 'file', filename: '报修单 (1).txt', mime_type: 'text/plain', size: 20, platform_ref: { key: 'k1' } }],
    });
    const session = await getSession(db(), sessionIdFor('default', h.message('')));
    expect(session).not.toBeNull();
    expect(existsSync(join(session!.workspaceDir, '报修单 (1).txt'))).toBe(true);
    const out = await h.turn({ raw_input: '/echo_input file=file_1' });
    const body = text(out);
    expect(body).toContain('报修单 (1).txt');
  });

  it('a file over the platform download limit is refused with the limit in the user language, other files still arrive', async () => {
    const h = await makeTurnHarness(db());
    h.adapter.files.set('ok', Buffer.from('fine', 'utf8'));
    const big = new AttachmentTooLargeError('大文件.zip', 20 * 1024 * 1024);
    const fetch = h.adapter.fetchAttachment.bind(h.adapter);
    h.adapter.fetchAttachment = async (att) => {
      if (att.platform_ref.key === 'big') throw big;
      return fetch(att);
    };
    const out = await h.turn({
      raw_input: '两个文件',
      attachments: [
        { type: 'file', filename: '大文件.zip', size: null, platform_ref: { key: 'big' } },
        { type: 'file', filename: '小.txt', size: 4, platform_ref: { key: 'ok' } },
      ],
    });
    const notices = out.filter((m) => m.kind === 'notice').map((m) => m.text);
    expect(notices.some((t) => t.includes('大文件.zip') && t.includes('20 MB'))).toBe(true);
    expect(notices.join('\n')).not.toContain('小.txt');
    const session = await getSession(db(), sessionIdFor('default', h.message('')));
    expect(existsSync(join(session!.workspaceDir, '小.txt'))).toBe(true);
  });

  it('a sender outside the directory is refused politely under the directory-only policy', async () => {
    const h = await makeTurnHarness(db(), { configYaml: 'roles:\n  - id: default\n    org_id: demo\n    access: directory\n' });
    const out = await h.turn({ raw_input: '/echo_input n=1', actor: { id: 'stranger-9', display_name: '陌生人' } });
    expect(out).toHaveLength(1);
    expect(out[0]!.kind).toBe('notice');
    expect(out[0]!.text).toMatch(/通讯录|管理员/);
    expect(text(out)).not.toContain('echo');
  });

  it('a confirmation request becomes buttons; pressing confirm re-invokes the same call with the token', async () => {
    const h = await makeTurnHarness(db());
    const first = await h.turn({ raw_input: '/confirm_probe target=pump-3' });
    const withConfirm = first.find((m) => m.confirm);
    expect(withConfirm).toBeDefined();
    const token = withConfirm!.confirm!.token;
    expect(withConfirm!.confirm!.options.map((o) => o.id)).toEqual(['confirm', 'cancel']);
    const done = await h.turn({ kind: 'callback', raw_input: null, callback: { action: 'confirm', token } });
    expect(text(done)).toContain('已清空 pump-3');
    // a second press finds nothing to confirm (single use)
    const again = await h.turn({ kind: 'callback', raw_input: null, callback: { action: 'confirm', token } });
    expect(text(again)).not.toContain('已清空');
  });

  it('on a channel without buttons the prompt asks for 「确认」, and 「确认」 runs the call', async () => {
    const h = await makeTurnHarness(db(), { capabilities: { buttons: false, display: 'text' } });
    const first = await h.turn({ raw_input: '/confirm_probe target=tank-1' });
    expect(first.some((m) => m.confirm)).toBe(false);
    expect(text(first)).toContain('确认');
    const done = await h.turn({ raw_input: '确认' });
    expect(text(done)).toContain('已清空 tank-1');
  });

  it('「取消」 cancels the pending confirmation; nothing runs', async () => {
    const h = await makeTurnHarness(db());
    await h.turn({ raw_input: '/confirm_probe target=pump-9' });
    const out = await h.turn({ raw_input: '取消' });
    expect(text(out)).toMatch(/已取消/);
    const late = await h.turn({ raw_input: '确认' });
    expect(text(late)).not.toContain('已清空');
  });

  it('stop during a slow in-process skill ends the turn early and the skill saw abort_signal', async () => {
    const h = await makeTurnHarness(db());
    const msg = h.message('/slow_stop');
    const turn = h.turn(msg);
    const session = () => getSession(db(), sessionIdFor('default', msg));
    // wait until the skill has started (its marker file exists), then stop the chat's turn
    for (let i = 0; i < 500; i++) {
      const s = await session();
      if (s && existsSync(join(s.workspaceDir, 'started.txt'))) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(h.running.stopLocal(h.chatKey)).toBe(true);
    const out = await turn;
    const ws = (await session())!.workspaceDir;
    // the turn ends at once; the skill, told by abort_signal, leaves its marker right after
    for (let i = 0; i < 200 && !existsSync(join(ws, 'saw_abort.txt')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(join(ws, 'saw_abort.txt'))).toBe(true);
    expect(existsSync(join(ws, 'finished.txt'))).toBe(false);
    expect(text(out)).toMatch(/已停止|stopped/);
  });

  it('progress is shown while a turn runs longer than the progress delay, and cleared after', async () => {
    const h = await makeTurnHarness(db());
    const msg = h.message('/slow_stop');
    const turn = h.turn(msg);
    for (let i = 0; i < 500 && h.adapter.typingCalls.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h.adapter.typingCalls.length).toBeGreaterThan(0);
    h.running.stopLocal(h.chatKey);
    await turn;
    expect(h.adapter.progressNotes[0]).toBe('处理中…');
    expect(h.adapter.progressNotes.at(-1)).toBeNull();
  });

  it('a skill failure reaches the user as a message, never as a stack trace', async () => {
    const h = await makeTurnHarness(db());
    const out = await h.turn({ raw_input: '/echo_input n="not a number"' });
    const body = text(out);
    expect(body.length).toBeGreaterThan(0);
    expect(body).not.toMatch(/\n\s+at /);
  });
});

describe('session key', () => {
  it('one session per role + channel + account + chat (+ thread)', () => {
    const base = { channel: 'telegram', account: 'default', chat: { id: '42', type: 'group' as const } };
    const a = sessionIdFor('r1', base);
    expect(sessionIdFor('r1', base)).toBe(a);
    expect(sessionIdFor('r2', base)).not.toBe(a);
    expect(sessionIdFor('r1', { ...base, account: 'ops' })).not.toBe(a);
    expect(sessionIdFor('r1', { ...base, chat: { ...base.chat, thread_id: '7' } })).not.toBe(a);
  });
});

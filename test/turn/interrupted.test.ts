/**
 * A turn and crash recovery (docs/recovery.md): the started call is recorded before a skill
 * that does not declare `idempotent: true` and never before one that does; a turn taken over
 * with an interrupted call does not call the skill but offers to run it again — a button, or
 * 「确认」 on a channel without buttons — and the answer runs the same call once, without a token.
 */
import { expect, it } from 'vitest';
import type { OutboundMessage } from '../../src/channel/types.ts';
import type { StartedCall } from '../../src/inbox/types.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeTurnHarness } from './helpers.ts';

const text = (out: OutboundMessage[]): string => out.map((m) => m.text).join('\n');

describeEachEngine('turn: started calls and interrupted turns', (db) => {
  it('records the started call before a non-idempotent skill only', async () => {
    const marks: { id: string; lease_owner: string; call: StartedCall }[] = [];
    const h = await makeTurnHarness(db(), { markStarted: async (event, call) => void marks.push({ ...event, call }) });
    await h.turn({ raw_input: '/echo_input n=5' }, { lease_owner: 'owner-1' });
    expect(marks).toEqual([{ id: expect.any(String), lease_owner: 'owner-1', call: { skill: 'echo_input', input: { n: 5 } } }]);
    await h.turn({ raw_input: '/help' }, { lease_owner: 'owner-1' }); // help declares idempotent: true
    await h.turn({ raw_input: '/word_count text=abc' }, { lease_owner: 'owner-1' });
    expect(marks).toHaveLength(1);
  });

  it('an interrupted call is offered again with a button, not run; the button runs it once as it was', async () => {
    const marks: StartedCall[] = [];
    const h = await makeTurnHarness(db(), { markStarted: async (_e, call) => void marks.push(call) });
    const out = await h.turn({ raw_input: '/echo_input n=7' }, { lease_owner: 'o', interrupted: { skill: 'echo_input', input: { n: 7 } } });
    expect(marks).toHaveLength(0); // the skill was not called
    const offer = out.find((m) => m.confirm);
    expect(offer?.confirm?.prompt_md).toMatch(/echo_input.*重启/);
    expect(offer?.confirm?.options.map((o) => [o.id, o.label])).toEqual([
      ['confirm', '重新执行'],
      ['cancel', '不用了'],
    ]);
    const done = await h.turn(
      { kind: 'callback', raw_input: null, callback: { action: 'confirm', token: offer!.confirm!.token } },
      { lease_owner: 'o' },
    );
    expect(marks).toEqual([{ skill: 'echo_input', input: { n: 7 } }]); // the same input, no confirm_token
    expect(text(done)).toContain('7');
    const again = await h.turn(
      { kind: 'callback', raw_input: null, callback: { action: 'confirm', token: offer!.confirm!.token } },
      { lease_owner: 'o' },
    );
    expect(marks).toHaveLength(1); // single use
    expect(text(again)).toMatch(/没有待确认/);
  });

  it('on a channel without buttons the offer asks for 「确认」, which runs the call; 「取消」 does nothing', async () => {
    const marks: StartedCall[] = [];
    const h = await makeTurnHarness(db(), {
      capabilities: { buttons: false, display: 'text' },
      markStarted: async (_e, call) => void marks.push(call),
    });
    const out = await h.turn({ raw_input: 'x' }, { lease_owner: 'o', interrupted: { skill: 'echo_input', input: { note: 'again' } } });
    expect(out.some((m) => m.confirm)).toBe(false);
    expect(text(out)).toMatch(/echo_input[\s\S]*确认/);
    await h.turn({ raw_input: '确认' }, { lease_owner: 'o' });
    expect(marks).toEqual([{ skill: 'echo_input', input: { note: 'again' } }]);

    await h.turn({ raw_input: 'y' }, { lease_owner: 'o', interrupted: { skill: 'echo_input', input: { note: 'no' } } });
    const cancelled = await h.turn({ raw_input: '取消' }, { lease_owner: 'o' });
    expect(text(cancelled)).toMatch(/已取消/);
    expect(marks).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { REPLY_MAX_PARTS } from '../../../src/channel/long-reply.ts';
import { runReplyJob, type ReplyJob } from '../../../adapters/telegram/reply-job.ts';
import { OFF_THREAD_MIN, runReplyJobOffThread } from '../../../adapters/telegram/reply-off-thread.ts';

const line = '**泵房** 压力 [报告](https://example.com/r?a=1&b=2) 正常 & 稳定。\n';

function job(text: string, max = 4096): ReplyJob {
  return { dialect: 'telegram', text, max, unit: 'utf16', split: { format: 'html', lang: 'zh-CN', omitted: 970_000 } };
}

describe('a long reply is rendered and split in the render worker (docs/operations-delivery.md "Long replies")', () => {
  it('a text longer than OFF_THREAD_MIN runs in the worker and gives exactly what the step gives in place', async () => {
    const long = job(line.repeat(Math.ceil(28_000 / line.length)));
    expect(long.text.length).toBeGreaterThan(OFF_THREAD_MIN);
    const off = await runReplyJobOffThread(long);
    expect(off.ran).toBe('worker');
    const { ran: _ran, ...result } = off;
    expect(result).toEqual(runReplyJob(long));
    expect(result.parts).toHaveLength(REPLY_MAX_PARTS);
    expect(result.parts.at(-1)).toMatch(/回复过长/);
    expect(result.rendered).toContain('<b>泵房</b>');
    // The worker stays up for the next long reply.
    expect((await runReplyJobOffThread(long)).ran).toBe('worker');
  });

  it('a short text runs in place; a job the step refuses is refused the same way from the worker', async () => {
    const short = await runReplyJobOffThread(job(line));
    expect(short.ran).toBe('here');
    expect(short.parts).toEqual(runReplyJob(job(line)).parts);
    await expect(runReplyJobOffThread(job(line.repeat(400), 0))).rejects.toThrow(RangeError);
  });
});

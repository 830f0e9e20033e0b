import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offloadIfLarge, serializedSize } from '../../src/envelope/offload.ts';
import type { Envelope } from '../../src/envelope/types.ts';
import { removeDir, tempDir } from './helpers.ts';

let ws: string;
beforeEach(async () => {
  ws = await tempDir('sg-off-');
});
afterEach(async () => {
  await removeDir(ws);
});

const clock = () => Date.UTC(2026, 0, 2, 3, 4, 5);

/** An envelope whose serialisation is exactly `points` code points, padded with `ch`. */
function sized(points: number, ch: string, extra: Envelope = {}): Envelope {
  const env: Envelope = { success: true, ...extra, text: '' };
  const pad = points - serializedSize(env);
  env.text = ch.repeat(pad);
  expect(serializedSize(env)).toBe(points);
  return env;
}

describe('offloadIfLarge (R-OFF-01..05, A-17, A-18)', () => {
  it("R-OFF-01: the platform's artifacts list is not counted — a 12000-point result with artifacts stays inline", async () => {
    const own = sized(12000, 'x');
    const withArtifacts: Envelope = { ...own, artifacts: [{ filename: 'a.png', local_path: '/w/a.png', media: 'image' }] };
    expect(await offloadIfLarge(withArtifacts, { skill: 'demo', workspaceDir: ws, clock })).toBe(withArtifacts);
    const bigger: Envelope = { ...sized(12001, 'x'), artifacts: [] };
    expect((await offloadIfLarge(bigger, { skill: 'demo', workspaceDir: ws, clock })).offloaded).toBe(true);
  });

  it('R-OFF-01, A-17: exactly 12000 code points of Chinese text stays inline; 12001 is offloaded', async () => {
    const inline = sized(12000, '中');
    expect(await offloadIfLarge(inline, { skill: 'demo', workspaceDir: ws, clock })).toBe(inline);
    const big = sized(12001, '中');
    const receipt = await offloadIfLarge(big, { skill: 'demo', workspaceDir: ws, clock });
    expect(receipt.offloaded).toBe(true);
    expect(await readdir(path.join(ws, '.offload'))).toEqual(['offload_demo_20260102_030405.json']);
  });

  it('A-17: size counts code points, not UTF-16 units (astral characters) and never \\u-escapes', async () => {
    const env = sized(12000, '𠮷');
    expect(JSON.stringify(env).length).toBeGreaterThan(12000); // UTF-16 units
    expect(await offloadIfLarge(env, { skill: 'demo', workspaceDir: ws, clock })).toBe(env);
  });

  it('R-OFF-02, R-OFF-03, A-18: the receipt has file name, fields, counts, first samples and the preserved fields', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, 名称: `第${i}行`, 备注: '很长的备注'.repeat(5) }));
    const env: Envelope = {
      success: true,
      ok: true,
      total: 300,
      rows,
      tags: [],
      display_md: '**共 300 行**',
      download_url: 'https://example.com/x.xlsx',
      action_note: 'a→b',
      artifacts: [{ filename: 'x.xlsx', local_path: path.join(ws, 'x.xlsx'), media: 'file' }],
    };
    const receipt = await offloadIfLarge(env, { skill: 'report-gen', workspaceDir: ws, clock });
    const file = path.join(ws, '.offload', 'offload_report-gen_20260102_030405.json');
    expect(receipt).toEqual({
      offloaded: true,
      filename: 'offload_report-gen_20260102_030405.json',
      local_path: file,
      offload_file: 'offload_report-gen_20260102_030405.json',
      offload_path: file,
      fields: ['success', 'ok', 'total', 'rows', 'tags', 'display_md', 'download_url', 'action_note', 'artifacts'],
      counts: { rows: 300, tags: 0, artifacts: 1 },
      sample: { rows: rows[0], artifacts: env.artifacts![0] },
      success: true,
      ok: true,
      display_md: '**共 300 行**',
      download_url: 'https://example.com/x.xlsx',
      action_note: 'a→b',
      artifacts: env.artifacts,
    });
    expect(receipt).not.toHaveProperty('total');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(env);
  });

  it('R-OFF-03: a result with its own filename/local_path keeps them; the offload file is in offload_file/offload_path', async () => {
    const own = path.join(ws, 'report.xlsx');
    const env = sized(13000, 'x', { filename: 'report.xlsx', local_path: own, media: 'file', images: ['a.png'] });
    const receipt = await offloadIfLarge(env, { skill: 'r', workspaceDir: ws, clock });
    expect(receipt.filename).toBe('report.xlsx');
    expect(receipt.local_path).toBe(own);
    expect(receipt.media).toBe('file');
    expect(receipt.images).toEqual(['a.png']);
    expect(receipt.offload_path).toBe(path.join(ws, '.offload', 'offload_r_20260102_030405.json'));
  });

  it('A-18: two offloads in the same second get _1; the skill name is sanitised', async () => {
    const a = await offloadIfLarge(sized(12001, 'a'), { skill: 'x/../y', workspaceDir: ws, clock });
    const b = await offloadIfLarge(sized(12001, 'b'), { skill: 'x/../y', workspaceDir: ws, clock });
    expect(a.offload_file).toBe('offload_x____y_20260102_030405.json');
    expect(b.offload_file).toBe('offload_x____y_20260102_030405_1.json');
  });

  it('R-OFF-04: failures are never offloaded, however large', async () => {
    const env: Envelope = { success: false, error: 'e', dump: 'z'.repeat(50000) };
    expect(await offloadIfLarge(env, { skill: 's', workspaceDir: ws, clock })).toBe(env);
    const okFalse: Envelope = { ok: false, error: 'e', dump: 'z'.repeat(50000) };
    expect(await offloadIfLarge(okFalse, { skill: 's', workspaceDir: ws, clock })).toBe(okFalse);
    await expect(readdir(path.join(ws, '.offload'))).rejects.toThrow();
  });

  it('R-OFF-05: read-type tools (file_read) are never offloaded', async () => {
    const env: Envelope = { success: true, content: 'z'.repeat(50000) };
    expect(await offloadIfLarge(env, { skill: 'file_read', workspaceDir: ws, clock })).toBe(env);
    expect(await offloadIfLarge(env, { skill: 'my_reader', workspaceDir: ws, clock, readType: true })).toBe(env);
  });

  it('A-18: a huge first sample is cut to a preview', async () => {
    const env: Envelope = { success: true, items: ['y'.repeat(20000)] };
    const receipt = await offloadIfLarge(env, { skill: 's', workspaceDir: ws, clock });
    const sample = (receipt.sample as Record<string, string>).items!;
    expect(typeof sample).toBe('string');
    expect([...sample].length).toBe(2001);
  });
});

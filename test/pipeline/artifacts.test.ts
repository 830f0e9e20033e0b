/**
 * Artifacts and attachment references across two calls on one workspace.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { listAttachments } from '../../src/session/attachments.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeHarness, type Harness } from './helpers.ts';

describeEachEngine('pipeline: audio artifacts and reference ids', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(db());
  });

  it('A-15: an audio file (declared without media, or collected from the workspace) is an artifact with media "audio"', async () => {
    const ws = join(h.dataDir, 'ws-audio');
    const env = await h.run('writes_audio', { workspace: ws });
    expect(env.success).toBe(true);
    const artifacts = env.artifacts as { filename: string; local_path: string; media: string }[];
    expect(artifacts.map((a) => [a.filename, a.media]).sort()).toEqual([
      ['memo.wav', 'audio'],
      ['voice.mp3', 'audio'],
    ]);
  });

  it('R-FILE-06, R-FILE-07: registered files get reference ids (audio_1, audio_2) and a later call may pass an id for the path', async () => {
    const ws = join(h.dataDir, 'ws-refs');
    await h.run('writes_audio', { workspace: ws });
    const echo = await h.run('ctx_echo', { input: { note: 'n' }, workspace: ws });
    const sessionId = String((echo.values as Record<string, unknown>).session_id);
    const records = await listAttachments(h.services.db, sessionId);
    expect(records.map((r) => [r.ref, r.filename]).sort()).toEqual([
      ['audio_1', expect.stringMatching(/^(voice\.mp3|memo\.wav)$/)],
      ['audio_2', expect.stringMatching(/^(voice\.mp3|memo\.wav)$/)],
    ]);
    // R-CTX-05: the earlier artifacts are in this call's attachments.
    const attachments = (echo.values as Record<string, unknown>).attachments as { type: string; filename: string }[];
    expect(attachments.map((a) => [a.type, a.filename]).sort()).toEqual([
      ['audio', 'memo.wav'],
      ['audio', 'voice.mp3'],
    ]);
    const first = records.find((r) => r.ref === 'audio_1')!;
    const read = await h.run('reads_file', { input: { file: 'audio_1' }, workspace: ws });
    expect(read).toMatchObject({ success: true, file: first.localPath });
  });
});

describeEachEngine('pipeline: a workspace removed from outside', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(db());
  });

  it('R-PCTX-06, R-ART-09: a call after the folder was removed finds it created again and collects what it writes', async () => {
    const ws = join(h.dataDir, 'ws-removed');
    expect((await h.run('writes_audio', { workspace: ws })).success).toBe(true);
    rmSync(ws, { recursive: true, force: true });
    const again = await h.run('writes_audio', { workspace: ws });
    expect(again.success).toBe(true);
    expect(existsSync(join(ws, 'voice.mp3'))).toBe(true);
    const artifacts = again.artifacts as { filename: string }[];
    expect(artifacts.map((a) => a.filename).sort()).toEqual(['memo.wav', 'voice.mp3']);
  });
});

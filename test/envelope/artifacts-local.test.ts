import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectNewFiles, processArtifacts, snapshotWorkspace } from '../../src/envelope/artifacts/index.ts';
import { mediaPathLine } from '../../src/executor/stdout.ts';
import { captureLogger, removeDir, tempDir } from './helpers.ts';

let ws: string;
let outside: string;
beforeEach(async () => {
  ws = realpathSync(await tempDir('sg-ws-'));
  outside = realpathSync(await tempDir('sg-out-'));
});
afterEach(async () => {
  await removeDir(ws);
  await removeDir(outside);
});

describe('fallback collection (R-ART-09, R-ART-10, A-13, D-21)', () => {
  it('R-ART-09, R-ART-10, D-21: report.xlsx + run.log + tmp/import_1.json, nothing declared ⇒ exactly report.xlsx', async () => {
    const before = await snapshotWorkspace(ws);
    // the "skill" runs
    await writeFile(path.join(ws, 'report.xlsx'), 'xlsx');
    await writeFile(path.join(ws, 'run.log'), 'log');
    await mkdir(path.join(ws, 'tmp'));
    await writeFile(path.join(ws, 'tmp', 'import_1.json'), '{}');
    const { log } = captureLogger();
    const env = await processArtifacts({ success: true, inserted: 3 }, { workspaceDir: ws, before, log });
    expect(env.artifacts).toEqual([{ filename: 'report.xlsx', local_path: path.join(ws, 'report.xlsx'), media: 'file' }]);
    expect(env).not.toHaveProperty('artifact_errors');
    expect(env.inserted).toBe(3);
  });

  it('A-13: unchanged files are not collected; changed and new ones are; root *_import_*.json is (R-ART-10)', async () => {
    await writeFile(path.join(ws, 'old.csv'), 'a');
    await writeFile(path.join(ws, 'edited.csv'), 'a');
    const before = await snapshotWorkspace(ws);
    await writeFile(path.join(ws, 'edited.csv'), 'a,b,c');
    await utimes(path.join(ws, 'edited.csv'), new Date(), new Date(Date.now() + 5000));
    await writeFile(path.join(ws, 'orders_import_1.json'), '[]');
    const found = await collectNewFiles(ws, before);
    expect(found.map((f) => f.filename)).toEqual(['edited.csv', 'orders_import_1.json']);
  });

  it('R-ART-09: .py .js .sh .log .tmp .srt .pyc excluded unless the user asked for a script; dotfiles never', async () => {
    const before = await snapshotWorkspace(ws);
    for (const n of ['a.py', 'b.js', 'c.sh', 'd.log', 'e.tmp', 'f.srt', 'g.pyc', 'h.PY', '.hidden.csv', 'ok.png']) {
      await writeFile(path.join(ws, n), 'x');
    }
    expect((await collectNewFiles(ws, before)).map((f) => f.filename)).toEqual(['ok.png']);
    const withScripts = (await collectNewFiles(ws, before, { allowScripts: true })).map((f) => f.filename);
    expect(withScripts).toEqual(['a.py', 'b.js', 'c.sh', 'd.log', 'e.tmp', 'f.srt', 'g.pyc', 'h.PY', 'ok.png']);
    expect((await collectNewFiles(ws, before)).find((f) => f.filename === 'ok.png')?.media).toBe('image');
  });

  it('D-21: a symlink in the root pointing outside the workspace is skipped; one pointing inside is kept', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await mkdir(path.join(ws, 'sub'));
    await writeFile(path.join(ws, 'sub', 'chart.png'), 'png');
    const before = await snapshotWorkspace(ws);
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'leak.txt'));
    await symlink(path.join(ws, 'sub', 'chart.png'), path.join(ws, 'chart.png'));
    const found = await collectNewFiles(ws, before);
    expect(found.map((f) => [f.filename, f.local_path])).toEqual([['chart.png', path.join(ws, 'sub', 'chart.png')]]);
  });
});

describe('declared artifacts (R-ART-01)', () => {
  it('R-ART-01: the single top-level shape and the arrays (strings and objects) both produce artifacts', async () => {
    await writeFile(path.join(ws, 'report.xlsx'), 'x');
    await writeFile(path.join(ws, 'a.png'), 'x');
    await mkdir(path.join(ws, 'out'));
    await writeFile(path.join(ws, 'out', 'clip.mp4'), 'x');
    await writeFile(path.join(ws, 'voice.ogg'), 'x');
    await writeFile(path.join(ws, 'blob'), 'x');
    const before = await snapshotWorkspace(ws); // nothing new afterwards: only declarations count
    const { log } = captureLogger();
    const env = await processArtifacts(
      {
        ok: true,
        filename: '季度报表.xlsx',
        local_path: path.join(ws, 'report.xlsx'),
        media: 'file',
        images: ['a.png'],
        videos: [{ local_path: path.join(ws, 'out', 'clip.mp4') }],
        audios: [{ local_path: 'voice.ogg', filename: 'v.ogg' }],
        files: [{ local_path: 'blob', media: 'image' }],
      },
      { workspaceDir: ws, before, log },
    );
    expect(env.artifacts).toEqual([
      { filename: '季度报表.xlsx', local_path: path.join(ws, 'report.xlsx'), media: 'file' },
      { filename: 'a.png', local_path: path.join(ws, 'a.png'), media: 'image' },
      { filename: 'clip.mp4', local_path: path.join(ws, 'out', 'clip.mp4'), media: 'video' },
      { filename: 'v.ogg', local_path: path.join(ws, 'voice.ogg'), media: 'audio' },
      { filename: 'blob', local_path: path.join(ws, 'blob'), media: 'image' },
    ]);
  });

  it('R-ART-01: a declared file outside the workspace is not registered (warning + note); a missing one gets a note', async () => {
    await writeFile(path.join(outside, 'x.png'), 'x');
    const { log, lines } = captureLogger();
    const before = await snapshotWorkspace(ws);
    const registered: string[] = [];
    const env = await processArtifacts(
      { success: true, images: [path.join(outside, 'x.png'), '../' + path.basename(outside) + '/x.png', 'missing.png'] },
      { workspaceDir: ws, before, log, register: async (a) => void registered.push(a.local_path) },
    );
    expect(env.artifacts).toEqual([]);
    expect(registered).toEqual([]);
    const errors = env.artifact_errors as Array<{ path: string; error: string }>;
    expect(errors.map((e) => e.path)).toEqual([path.join(outside, 'x.png'), '../' + path.basename(outside) + '/x.png', 'missing.png']);
    expect(errors[0]!.error).toContain('工作区');
    expect(lines().filter((l) => l.level === 40).length).toBe(3);
  });

  it('R-ART-02, R-ART-08: register is called once per artifact, de-duplicated by real path, with its origin', async () => {
    const before = await snapshotWorkspace(ws);
    await writeFile(path.join(ws, 'chart.png'), 'x');
    await writeFile(path.join(ws, 'extra.csv'), 'x');
    const calls: Array<[string, string]> = [];
    const { log } = captureLogger();
    const env = await processArtifacts(
      { success: true, local_path: 'chart.png', images: [path.join(ws, 'chart.png')], artifacts: 'skill value' as unknown as [] },
      { workspaceDir: ws, before, log, register: async (a) => void calls.push([a.filename, a.origin]) },
    );
    expect(calls).toEqual([
      ['chart.png', 'declared'],
      ['extra.csv', 'collected'],
    ]);
    expect((env.artifacts as unknown[]).length).toBe(2);
  });

  it('R-ART-08: a failing registration is noted and that artifact left out; the skill does not fail', async () => {
    const before = await snapshotWorkspace(ws);
    await writeFile(path.join(ws, 'a.csv'), 'x');
    const { log } = captureLogger();
    const env = await processArtifacts(
      { success: true },
      { workspaceDir: ws, before, log, lang: 'en', register: async () => Promise.reject(new Error('db down')) },
    );
    expect(env.success).toBe(true);
    expect(env.artifacts).toEqual([]);
    expect(env.artifact_errors).toEqual([{ path: path.join(ws, 'a.csv'), error: 'artifact registration failed: db down' }]);
  });
});

describe('media path lines (A-06)', () => {
  it('A-06: an existing absolute or workspace-relative path with a known extension becomes {local_path, media}', async () => {
    await writeFile(path.join(ws, 'plot.png'), 'x');
    await writeFile(path.join(ws, 'notes.weirdext'), 'x');
    expect(mediaPathLine(`${path.join(ws, 'plot.png')}\n`, { workspaceDir: ws })).toEqual({
      local_path: path.join(ws, 'plot.png'),
      media: 'image',
    });
    expect(mediaPathLine('plot.png', { workspaceDir: ws })).toEqual({ local_path: path.join(ws, 'plot.png'), media: 'image' });
    expect(mediaPathLine('missing.png', { workspaceDir: ws })).toBeNull();
    expect(mediaPathLine('notes.weirdext', { workspaceDir: ws })).toBeNull();
    expect(mediaPathLine('done: 3 rows', { workspaceDir: ws })).toBeNull();
  });
});

/**
 * The whole text of a cut reply kept as a session file (src/turn/full-text.ts,
 * docs/operations-delivery.md "Long replies"). Both engines.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { AdapterCapabilities } from '../../src/channel/types.ts';
import { getOrCreateSession, listAttachments } from '../../src/session/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { composeKeepingFull, keepFullText } from '../../src/turn/full-text.ts';
import { describeEachEngine } from '../helpers/db.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'skillgate-full-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const CAPS: AdapterCapabilities = { display: 'rich', buttons: false, max_length: 500, length_unit: 'utf16', typing: false, media: true };
const NOW = new Date('2026-01-02T03:04:05.000Z');

describeEachEngine('the full text of a cut reply', (db, engine) => {
  beforeAll(async () => {
    await migrate(db());
  });

  const session = () =>
    getOrCreateSession(db(), {
      id: `s_full_${engine}`,
      roleId: 'default',
      orgId: 'demo',
      channel: 'telegram',
      ownerKey: 'telegram:1',
      dataDir,
    });

  it('is written whole under .offload/ (never overwriting) and registered as a file of the session', async () => {
    const s = await session();
    const text = `${'第一行 **粗体** & 链接\n'.repeat(40_000)}😀`;
    const a = await keepFullText(db(), s, text, 'zh-CN', NOW);
    const b = await keepFullText(db(), s, 'again', 'en', NOW);
    const c = await keepFullText(db(), s, 'and again', 'en', NOW);
    expect(a.filename).toBe('完整回复-20260102-030405.md');
    expect([b.filename, c.filename]).toEqual(['full-reply-20260102-030405.md', 'full-reply-20260102-030405-1.md']);
    expect(a.path).toBe(join(s.workspaceDir, '.offload', a.filename));
    expect(readFileSync(a.path, 'utf8')).toBe(text);
    expect(a.size).toBe(Buffer.byteLength(text));
    expect(a).toMatchObject({ kind: 'file', mime_type: 'text/markdown' });
    const rec = (await listAttachments(db(), s.id)).find((r) => r.id === a.file_id);
    expect(rec).toMatchObject({ filename: a.filename, localPath: a.path, type: 'file', origin: 'artifact' });
  });

  it('composeKeepingFull: a cut reply carries the kept file and names it; a reply that fits keeps nothing', async () => {
    const s = await session();
    const huge = '一行内容\n'.repeat(5_000);
    const keep = vi.fn((text: string) => keepFullText(db(), s, text, 'zh-CN', NOW));
    const [m] = await composeKeepingFull({ plannerText: huge, invocations: [], capabilities: CAPS, lang: 'zh-CN' }, keep);
    expect(keep).toHaveBeenCalledTimes(1);
    const file = m!.media!.at(-1)!;
    expect(m!.full_text_file).toBe(file.filename);
    expect(m!.text).toContain(`全文见附件 ${file.filename}）`);
    expect(readFileSync(file.path, 'utf8')).toBe(huge.trim());
    const [short] = await composeKeepingFull({ plannerText: '短', invocations: [], capabilities: CAPS, lang: 'zh-CN' }, keep);
    expect(keep).toHaveBeenCalledTimes(1);
    expect(short!.text).toBe('短');
  });
});

it('composeKeepingFull: a file that cannot be kept leaves the cut reply as it was, reported once', async () => {
  const onError = vi.fn();
  const boom = new Error('disk full');
  const args = { plannerText: '一行内容\n'.repeat(5_000), invocations: [], capabilities: CAPS, lang: 'en' as const };
  const [m] = await composeKeepingFull(args, () => Promise.reject(boom), onError);
  expect(onError).toHaveBeenCalledWith(boom);
  expect(m!.text).toMatch(/\(reply too long: only the first part was sent, about \d+ characters left out\)$/);
  expect(m!.full_text_file).toBeUndefined();
  expect(m!.media).toBeUndefined();
});

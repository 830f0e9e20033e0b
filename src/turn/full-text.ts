/**
 * The whole text of a cut reply, kept as a file (docs/operations-delivery.md "Long replies",
 * docs/requirements.md#R-OFF-01): a reply bounded to a few messages names the file that holds all
 * of it, and a channel that sends files sends it with the reply.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OutboundMedia, OutboundMessage } from '../channel/types.ts';
import { OFFLOAD_DIR } from '../envelope/offload.ts';
import { registerAttachment } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { composeReply, type ComposeArgs } from './reply/index.ts';
import type { Lang } from './reply/text.ts';

/** The file name's stem by language (hyphens only: a markdown notice names it unescaped). */
const STEM: Record<Lang, string> = { 'zh-CN': '完整回复', en: 'full-reply' };

/** `YYYYMMDD-HHMMSS` in UTC. */
function stamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
}

/**
 * Write `text` to `<workspace>/.offload/<完整回复|full-reply>-<UTC stamp>[-n].md` (UTF-8, never
 * overwriting) and register it as a file of the session, so it is served and sent like an artifact.
 * @returns the media item of the file.
 * @throws the file system or database error.
 */
export async function keepFullText(
  q: Queryable,
  session: { id: string; workspaceDir: string },
  text: string,
  lang: Lang,
  now: Date = new Date(),
): Promise<OutboundMedia> {
  const dir = path.join(session.workspaceDir, OFFLOAD_DIR);
  await mkdir(dir, { recursive: true });
  const data = Buffer.from(text, 'utf8');
  const base = `${STEM[lang] ?? STEM['zh-CN']}-${stamp(now)}`;
  let filename = '';
  for (let n = 0; ; n++) {
    filename = n === 0 ? `${base}.md` : `${base}-${n}.md`;
    try {
      await writeFile(path.join(dir, filename), data, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 999) throw err;
    }
  }
  const localPath = path.join(dir, filename);
  const rec = await registerAttachment(q, {
    sessionId: session.id,
    type: 'file',
    filename,
    localPath,
    origin: 'artifact',
    mime: 'text/markdown',
    sizeBytes: data.length,
  });
  return { kind: 'file', path: localPath, filename, mime_type: 'text/markdown', size: data.length, file_id: rec.id };
}

/**
 * {@link composeReply}, and when the body is cut: the whole body kept by `keep` and the reply
 * composed again around that file. A `keep` that fails leaves the reply as first composed
 * (cut, its notice naming no file) and is reported to `onError`.
 */
export async function composeKeepingFull(
  args: ComposeArgs,
  keep: (text: string) => Promise<OutboundMedia>,
  onError: (err: unknown) => void = () => undefined,
): Promise<OutboundMessage[]> {
  let whole: string | null = null;
  const first = composeReply({
    ...args,
    onCut: (text) => {
      whole = text;
    },
  });
  if (whole === null) return first;
  let file: OutboundMedia;
  try {
    file = await keep(whole);
  } catch (err) {
    onError(err);
    return first;
  }
  return composeReply({ ...args, fullText: file });
}

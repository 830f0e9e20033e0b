/**
 * A `tools/call` result as a skill result (docs/mcp.md "What maps to what"):
 * - text blocks → `result` and `display_md` (joined by blank lines);
 * - image / audio blocks and embedded blob resources → files written into the call's
 *   workspace and declared as `images` / `audios` / `files`, so they are delivered like any
 *   other artifact; embedded text resources join the text; resource links are listed as links;
 * - `structuredContent` → `data`;
 * - `isError: true` → `success: false` with the server's text as `error`.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sanitizeFilename } from '../envelope/artifacts/filename.ts';
import { mimeTypes } from '../config/lazy-packages.ts';

/** Largest decoded binary block written to the workspace, bytes. */
export const MAX_BLOCK_BYTES = 50 * 1024 * 1024;

type Block = CallToolResult['content'][number];

/** A file name for block `i` of `tool` with the extension of `mimeType`. */
function fileName(tool: string, i: number, mimeType: string | undefined, uri?: string): string {
  const fromUri = uri ? sanitizeFilename(decodeURIComponent(uri.split(/[?#]/)[0]!.split('/').pop() ?? '')) : undefined;
  if (fromUri && /\.[a-z0-9]{1,8}$/i.test(fromUri)) return fromUri;
  const ext = (mimeType && mimeTypes().extension(mimeType)) || 'bin';
  return sanitizeFilename(`${tool}_${i + 1}_${randomBytes(3).toString('hex')}.${ext}`) ?? `mcp_${i + 1}.${ext}`;
}

/**
 * The skill result of `res` from `tool`; binary blocks are written below `workspaceDir`.
 * @returns a plain object for the envelope stage (never throws for the server's content;
 *   an oversized or undecodable block is skipped and named in `mcp_skipped`).
 * @throws only when the workspace cannot be written.
 */
export async function toolResultValue(res: CallToolResult, tool: string, workspaceDir: string): Promise<Record<string, unknown>> {
  const texts: string[] = [];
  const images: Array<{ local_path: string; filename: string }> = [];
  const audios: Array<{ local_path: string; filename: string }> = [];
  const files: Array<{ local_path: string; filename: string }> = [];
  const skipped: string[] = [];
  const blocks: Block[] = Array.isArray(res.content) ? res.content : [];
  const save = async (
    i: number,
    data: string,
    mimeType: string | undefined,
    uri?: string,
  ): Promise<{ local_path: string; filename: string } | undefined> => {
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length === 0 || bytes.length > MAX_BLOCK_BYTES) {
      skipped.push(`content[${i}]: ${bytes.length === 0 ? 'empty' : 'too large'}`);
      return undefined;
    }
    const filename = fileName(tool, i, mimeType, uri);
    await mkdir(workspaceDir, { recursive: true });
    const local_path = join(workspaceDir, filename);
    await writeFile(local_path, bytes);
    return { local_path, filename };
  };
  for (const [i, b] of blocks.entries()) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'image') {
      const f = await save(i, b.data, b.mimeType);
      if (f) images.push(f);
    } else if (b.type === 'audio') {
      const f = await save(i, b.data, b.mimeType);
      if (f) audios.push(f);
    } else if (b.type === 'resource') {
      const r = b.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      if (typeof r.text === 'string') texts.push(r.text);
      else if (typeof r.blob === 'string') {
        const f = await save(i, r.blob, r.mimeType, r.uri);
        if (!f) continue;
        const kind = (r.mimeType ?? '').split('/')[0];
        (kind === 'image' ? images : kind === 'audio' ? audios : files).push(f);
      }
    } else if (b.type === 'resource_link') {
      texts.push(`[${b.name}](${b.uri})`);
    }
  }
  const text = texts.join('\n\n');
  if (res.isError) {
    return { success: false, error: text.trim() || `MCP tool "${tool}" reported an error`, error_type: 'recoverable' };
  }
  return {
    success: true,
    result: text,
    ...(text.trim() !== '' ? { display_md: text } : {}),
    ...(res.structuredContent !== undefined ? { data: res.structuredContent } : {}),
    ...(images.length > 0 ? { images } : {}),
    ...(audios.length > 0 ? { audios } : {}),
    ...(files.length > 0 ? { files } : {}),
    ...(skipped.length > 0 ? { mcp_skipped: skipped } : {}),
  };
}

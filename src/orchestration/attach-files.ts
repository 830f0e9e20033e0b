/**
 * The `attach` input of notify / send_message (R-MSG-03: "attach = list of local absolute
 * paths"): each file must exist, be a regular file, and lie inside the caller's session
 * workspace (a relative path is taken from there) or one of the platform's attachment roots.
 * Symlinks are followed before the check, so a link cannot lead outside.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import type { AttachmentKind } from '../channel/types.ts';
import { mediaKindOf } from '../session/media-kind.ts';
import { mimeTypes } from '../config/lazy-packages.ts';

/** One checked attachment. */
export interface AttachFile {
  /** Real absolute path. */
  path: string;
  filename: string;
  kind: AttachmentKind;
  mime_type: string | null;
  size: number;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' ? false : !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * Check `attach` (a path string or a list of them).
 * @param workspaceDir the caller's `workspace_dir` ("" when none: only absolute paths under `roots`)
 * @returns the files, or `{error}` naming the first bad entry (zh-CN or English)
 */
export function checkAttachments(
  attach: unknown,
  workspaceDir: string,
  roots: readonly string[],
  lang: 'zh-CN' | 'en',
): { files: AttachFile[] } | { error: string } {
  if (attach === undefined || attach === null || attach === '') return { files: [] };
  const list = typeof attach === 'string' ? [attach] : attach;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || x.trim() === '')) {
    return { error: lang === 'en' ? 'attach must be a file path or a list of file paths' : 'attach 须为文件路径或文件路径列表' };
  }
  const allowed = [workspaceDir, ...roots].filter((r) => r !== '').map((r) => realOrNull(r) ?? resolve(r));
  const files: AttachFile[] = [];
  for (const raw of list as string[]) {
    const given = raw.trim();
    const abs = isAbsolute(given) ? given : workspaceDir ? resolve(workspaceDir, given) : '';
    const real = abs ? realOrNull(abs) : null;
    if (!real) {
      return { error: lang === 'en' ? `attachment not found: ${given}` : `附件不存在：${given}` };
    }
    if (!allowed.some((root) => inside(root, real))) {
      return { error: lang === 'en' ? `attachment is outside the session workspace: ${given}` : `附件不在会话工作区内：${given}` };
    }
    const st = statSync(real);
    if (!st.isFile()) return { error: lang === 'en' ? `attachment is not a file: ${given}` : `附件不是文件：${given}` };
    const filename = basename(real);
    files.push({ path: real, filename, kind: mediaKindOf(filename), mime_type: mimeTypes().lookup(filename) || null, size: st.size });
  }
  return { files };
}

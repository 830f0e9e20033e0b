/**
 * The per-workspace record of materialised URLs (R-ART-07: idempotent). Kept as a small JSON
 * file `<workspace>/.skillgate/fetched.json` — a hidden sub-folder, so fallback collection
 * never sees it. Written atomically (temp file + rename) and merged with what is on disk, so
 * two calls finishing at once lose nothing worse than a repeated download.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The platform's private workspace sub-folder. */
export const PLATFORM_DIR = '.skillgate';
const INDEX_FILE = 'fetched.json';

/** What happened to one URL. */
export type FetchIndexEntry =
  /** Downloaded into the workspace root as `filename` (`size` bytes, `sha256` hex). */
  | { status: 'downloaded'; filename: string; size: number; sha256: string; content_type?: string; at: string }
  /** Probed and skipped as a web page / JSON. */
  | { status: 'skipped'; content_type: string; at: string };

/** URL → entry. */
export type FetchIndex = Record<string, FetchIndexEntry>;

function indexPath(workspaceDir: string): string {
  return path.join(workspaceDir, PLATFORM_DIR, INDEX_FILE);
}

/** Read the record; a missing or unreadable file → `{}`. Never throws. */
export async function loadFetchIndex(workspaceDir: string): Promise<FetchIndex> {
  try {
    const parsed: unknown = JSON.parse(await readFile(indexPath(workspaceDir), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as FetchIndex) : {};
  } catch {
    return {};
  }
}

/**
 * Merge `updates` into the record on disk and write it atomically.
 * @throws when the workspace is not writable.
 */
export async function saveFetchIndex(workspaceDir: string, updates: FetchIndex): Promise<void> {
  if (Object.keys(updates).length === 0) return;
  const merged = { ...(await loadFetchIndex(workspaceDir)), ...updates };
  const dir = path.join(workspaceDir, PLATFORM_DIR);
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `${INDEX_FILE}.${randomUUID()}.tmp`);
  await writeFile(tmp, JSON.stringify(merged, null, 1), 'utf8');
  await rename(tmp, indexPath(workspaceDir));
}

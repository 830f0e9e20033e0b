/** Contacts and departments into the directory (docs/directory.md). */
import { DirectoryFormatError, importDirectory } from '../identity/import.ts';
import type { ImportReport, Lang } from '../identity/types.ts';
import type { Db } from '../store/db.ts';

/** What a directory import asks for (also the body of the local admin API route). */
export interface DirectoryImportRequest {
  /** Raw org id ("" → `r_<roleId>`). */
  orgId: string;
  roleId: string;
  format: 'csv' | 'json';
  /** The file's bytes, base64. */
  dataBase64: string;
  lang?: Lang;
}

/** Result of {@link runDirectoryImport}. */
export type DirectoryImportResult = { ok: true; report: ImportReport } | { ok: false; error: string };

/**
 * Run one import against the database (the CLI's direct path and the local admin API);
 * `channels` are the directory's channel columns.
 * Never throws for a bad file: `{ok:false, error}`.
 * @throws the database error.
 */
export async function runDirectoryImport(db: Db, req: DirectoryImportRequest, channels: readonly string[]): Promise<DirectoryImportResult> {
  const format = req.format === 'json' ? 'json' : 'csv';
  try {
    const report = await importDirectory(db, {
      orgId: String(req.orgId ?? ''),
      roleId: String(req.roleId ?? ''),
      data: Buffer.from(String(req.dataBase64 ?? ''), 'base64'),
      format,
      lang: req.lang === 'en' ? 'en' : 'zh-CN',
      channels,
    });
    return { ok: true, report };
  } catch (err) {
    if (err instanceof DirectoryFormatError) return { ok: false, error: err.message };
    throw err;
  }
}

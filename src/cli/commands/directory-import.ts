/**
 * `skillgate directory import <file.csv|json> [--role R] [--org ORG] [--lang zh-CN|en] [--json]`
 * — contacts and departments into the directory (docs/configuration.md; docs/directory.md).
 *
 * Org: `--org`, else the role's `org_id` from the configuration (role: `--role`, else
 * `SKILLGATE_ROLE_ID`); an empty org falls back to `r_<role>` (R-ORG-02). Format from the
 * extension (`.json` / `.csv`), else sniffed (`{` or `[` first → JSON).
 *
 * stdout: a summary (inserted / updated contacts, new departments, one line per refused row
 * and per warning); with `--json` exactly one document, the ImportReport.
 * Exit codes (README.md "The skillgate command"): 0 imported and no row refused; 1 some row was refused (the
 * others were imported), the file is not a directory (bad JSON/CSV), or an unknown role;
 * 2 the file cannot be read or the database cannot be reached. Works while `serve` runs
 * (local admin API `POST /api/local/directory/import`).
 */
import { channelDeclarations } from '../../../adapters/index.ts';
import { directoryChannels } from '../../channel/declaration.ts';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { loadConfigFile } from '../../config/file.ts';
import type { ImportReport, Lang } from '../../identity/types.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';
import { configSettings } from './config-set.ts';
import { type DirectoryImportRequest, type DirectoryImportResult, runDirectoryImport } from '../../admin/directory-import.ts';

/** `json` for `.json`, `csv` for `.csv`, else sniffed from the first non-blank character. */
export function directoryFormatOf(file: string, data: Buffer): 'csv' | 'json' {
  const ext = extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.csv') return 'csv';
  const head = data
    .subarray(0, 64)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return head.startsWith('{') || head.startsWith('[') ? 'json' : 'csv';
}

function summary(r: ImportReport, lang: Lang): string {
  const lines: string[] = [];
  if (lang === 'en') {
    lines.push(
      `directory ${r.orgId}: contacts ${r.contacts.inserted} inserted, ${r.contacts.updated} updated; departments ${r.departments.inserted} inserted`,
    );
    if (r.errors.length > 0) lines.push(`${r.errors.length} row(s) refused:`);
  } else {
    lines.push(`通讯录 ${r.orgId}：联系人新增 ${r.contacts.inserted}、更新 ${r.contacts.updated}；部门新增 ${r.departments.inserted}`);
    if (r.errors.length > 0) lines.push(`${r.errors.length} 行未导入：`);
  }
  for (const e of r.errors) lines.push(`  ${e.message}`);
  if (r.warnings.length > 0) lines.push(lang === 'en' ? `${r.warnings.length} warning(s):` : `${r.warnings.length} 条提示：`);
  for (const w of r.warnings) lines.push(`  ${w.message}`);
  return lines.join('\n') + '\n';
}

/**
 * Run `directory import` with commander's parsed options.
 * @returns 0 all rows imported, 1 refused rows / bad file / unknown role; throws CliError
 *   (exit 2) when the file cannot be read or the database cannot be reached.
 */
export async function directoryImportCommand(
  file: string,
  opts: { role?: string; org?: string; lang?: string; json?: boolean },
  io: CliIO,
): Promise<number> {
  const settings = configSettings();
  const lang: Lang = opts.lang === 'en' ? 'en' : 'zh-CN';
  const roleId = opts.role?.trim() || settings.roleId;
  let orgId = opts.org?.trim();
  if (orgId === undefined || orgId === '') {
    const config = configErrorsAsRefusal(() => loadConfigFile(settings.configPath, configDefaults(settings)));
    const role = config.roles.find((r) => r.id === roleId);
    if (!role) {
      io.stderr(`skillgate: unknown role "${roleId}"\n`);
      return EXIT_REFUSED;
    }
    orgId = role.org_id;
  }
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT_FAILED);
  }
  const req: DirectoryImportRequest = { orgId, roleId, format: directoryFormatOf(file, data), dataBase64: data.toString('base64'), lang };
  const result = await withCliDb<DirectoryImportResult>(settings, {
    direct: (db) => runDirectoryImport(db, req, directoryChannels(channelDeclarations)),
    viaServer: (call) => call<DirectoryImportResult>('POST', '/api/local/directory/import', req),
  });
  if (!result.ok) {
    io.stderr(`skillgate: ${result.error}\n`);
    return EXIT_REFUSED;
  }
  if (opts.json) printJson(io, result.report);
  else io.stdout(summary(result.report, lang));
  return result.report.errors.length > 0 ? EXIT_REFUSED : EXIT_OK;
}

/**
 * The danger scan ("危险代码扫描（SkillValidator）"; R-PRE-07;
 * item 3): reads a skill's code — TS/JS, Python, shell, and skill.toml's INLINE_SHELL
 * command — with comments stripped, and reports every rule of `DANGER_RULES` that fires.
 * Nothing is executed. A `critical` finding blocks create_skill / edit_skill.
 * Rules and severities: docs/danger-scan.md.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { DANGER_RULES, type DangerRule, type DangerSeverity } from './danger-rules.ts';
import { lineOf } from './scan-text.ts';
import { normalizeCode } from './normalize-code.ts';
import { stripComments, type ScanLang } from './strip-comments.ts';

export { DANGER_RULES, type DangerRule, type DangerSeverity } from './danger-rules.ts';

/** One rule firing at one line of one file. */
export interface DangerFinding {
  /** Rule id, e.g. `shell.interpolated`. */
  rule: string;
  severity: DangerSeverity;
  /** Path relative to the scanned folder, `/`-separated. */
  file: string;
  /** 1-based line. */
  line: number;
  /** What is wrong and what to do, in zh-CN (default) and English. */
  message: { 'zh-CN': string; en: string };
}

/** Bytes of one file the scan reads at most (the rest is ignored). */
export const MAX_SCAN_BYTES = 1_000_000;

const SEVERITY_ORDER: Record<DangerSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** The language of a file from its name and first line; null when the scan does not read it. */
export function scanLanguage(file: string, text: string): ScanLang | null {
  const ext = extname(file).toLowerCase();
  if (['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx', '.tsx'].includes(ext)) return 'js';
  if (ext === '.py') return 'py';
  if (['.sh', '.bash', '.zsh'].includes(ext)) return 'sh';
  const words = (/^#!(.*)/.exec(text)?.[1] ?? '').trim().split(/\s+/);
  const first = (words[0] ?? '').split('/').pop() ?? '';
  const shebang = first === 'env' ? (words.find((w, i) => i > 0 && !w.startsWith('-')) ?? '') : first;
  if (/^(?:ba|z|da)?sh$/.test(shebang)) return 'sh';
  if (/^python/.test(shebang)) return 'py';
  if (/^(?:node|deno|bun|tsx)$/.test(shebang)) return 'js';
  return null;
}

/**
 * Run `rules` over one source text of language `lang`; `file` is the name findings carry.
 * Comments are stripped first; each rule then reads that text and its normalized form
 * (`normalizeCode`: literals folded and decoded, same lines) and a finding of either counts.
 */
export function scanSource(file: string, text: string, lang: ScanLang, rules: readonly DangerRule[] = DANGER_RULES): DangerFinding[] {
  const code = stripComments(text, lang);
  const norm = normalizeCode(code, lang);
  const out: DangerFinding[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    // every rule reads the written code and its normalized form (same lines), fail closed
    const hits = [
      ...(rule.normalizedOnly ? [] : rule.find(code, lang).map((h) => ({ ...h, src: code }))),
      ...(norm !== code || rule.normalizedOnly ? rule.find(norm, lang, code).map((h) => ({ ...h, src: norm })) : []),
    ];
    for (const hit of hits) {
      const line = lineOf(hit.src, hit.index);
      const key = `${rule.id}:${line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ rule: rule.id, severity: rule.severity, file, line, message: rule.message });
    }
  }
  return out;
}

/** The INLINE_SHELL `command` of a skill.toml text with its line, or null. */
function inlineShell(text: string): { command: string; line: number } | null {
  let toml: Record<string, unknown>;
  try {
    toml = parseToml(text) as Record<string, unknown>;
  } catch {
    return null; // preflight reports the parse error
  }
  const exec = toml.exec as Record<string, unknown> | undefined;
  const table = (exec?.primary as Record<string, unknown> | undefined) ?? exec;
  const command = table?.command;
  if (typeof command !== 'string') return null;
  const at = text.search(/^\s*command\s*=/m);
  return { command, line: at === -1 ? 1 : lineOf(text, at) };
}

/**
 * Scan one file's text. Code files by extension or shebang; `skill.toml`'s INLINE_SHELL
 * command as shell (findings on the `command =` line). Other files: no findings.
 */
export function scanFile(file: string, text: string): DangerFinding[] {
  const body = text.length > MAX_SCAN_BYTES ? text.slice(0, MAX_SCAN_BYTES) : text;
  if (file === 'skill.toml' || file.endsWith('/skill.toml')) {
    const shell = inlineShell(body);
    return shell ? scanSource(file, shell.command, 'sh').map((f) => ({ ...f, line: shell.line + f.line - 1 })) : [];
  }
  const lang = scanLanguage(file, body);
  return lang ? scanSource(file, body, lang) : [];
}

/** Every regular file under `dir` (relative, `/`-separated; hidden files included), `.git` and node_modules skipped; symlinks not followed. */
async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name === '.git' || name === 'node_modules') continue;
    const abs = join(dir, name);
    const st = await lstat(abs);
    if (st.isDirectory()) out.push(...(await listFiles(abs, base)));
    else if (st.isFile()) out.push(relative(base, abs).split(sep).join('/'));
  }
  return out;
}

/**
 * Scan every code file of the skill folder `dir`.
 * @returns findings sorted by severity (critical first), then file and line.
 * @throws when `dir` cannot be read.
 */
export async function scanSkillDir(dir: string): Promise<DangerFinding[]> {
  const findings: DangerFinding[] = [];
  for (const file of await listFiles(dir)) {
    const buf = await readFile(join(dir, file));
    findings.push(...scanFile(file, buf.subarray(0, MAX_SCAN_BYTES).toString('utf8')));
  }
  return sortFindings(findings);
}

/** Findings ordered by severity (critical first), then file, then line. */
export function sortFindings(findings: readonly DangerFinding[]): DangerFinding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.rule.localeCompare(b.rule),
  );
}

/** True when any finding is `critical` (R-PRE-07: the write is blocked). */
export function hasCritical(findings: readonly DangerFinding[]): boolean {
  return findings.some((f) => f.severity === 'critical');
}

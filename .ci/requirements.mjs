#!/usr/bin/env node
// docs/requirements.md: parse the catalogue and find which files of the tree name each id.
// `npm run requirements:refresh` rewrites the code / docs / tests columns from the tree, keeping
// each rule's text; test/docs/requirements.test.ts checks the catalogue against the same scan.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CATALOGUE = 'docs/requirements.md';
/** An id as code and docs write it: R-DT-17, R-OUT-12a, D-05, A-29 (not part of a longer token). */
export const ID = /(?<![A-Za-z0-9-])(R-[A-Z]+-[0-9]+[a-z]?|[DA]-[0-9]{2})(?![0-9A-Za-z])/g;
const ROW = /^\| <a id="([^"]+)"><\/a>\1 \| (.*?) \|\s*(.*?)\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|$/;
const SCANNED = ['src', 'adapters', 'skills', 'docs', 'test'];
const TEXT = /\.(ts|js|mjs|cjs|md|json|sql|toml|py|sh|yaml|yml|html)$/;
export const NONE = 'none yet';
const SHOWN = 3;

/** Rows of the catalogue: id, rule text and the three file columns (paths, or [] for `none yet`). */
export function parseCatalogue(text) {
  const rows = [];
  for (const line of text.split('\n')) {
    const m = ROW.exec(line);
    if (!m) continue;
    const files = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((f) => f[1]);
    rows.push({ id: m[1], rule: m[2], cells: [m[3], m[4], m[5]], code: files(m[3]), docs: files(m[4]), tests: files(m[5]) });
  }
  return rows;
}

function walk(dir, out) {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    if (e.isDirectory()) walk(path, out);
    else if (TEXT.test(e.name) && path !== CATALOGUE) out.push(path);
  }
  return out;
}

/** id → (file → number of mentions), over src/, adapters/, skills/, docs/ and test/. */
export function scanMentions() {
  const byId = new Map();
  for (const file of SCANNED.flatMap((d) => walk(d, []))) {
    for (const [, id] of readFileSync(join(ROOT, file), 'utf8').matchAll(ID)) {
      if (!byId.has(id)) byId.set(id, new Map());
      const files = byId.get(id);
      files.set(file, (files.get(file) ?? 0) + 1);
    }
  }
  return byId;
}

/** The column a file belongs to; test helpers and fixtures are scanned for ids but not listed. */
export function kind(file) {
  if (file.startsWith('test/')) return file.endsWith('.test.ts') ? 'tests' : 'other';
  if (file.startsWith('docs/')) return 'docs';
  return file.endsWith('.test.ts') ? 'tests' : 'code';
}

function column(files, k) {
  const ranked = [...files].filter(([f]) => kind(f) === k).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (ranked.length === 0) return NONE;
  const shown = ranked
    .slice(0, SHOWN)
    .map(([f]) => `\`${f}\``)
    .join(', ');
  return ranked.length > SHOWN ? `${shown} +${ranked.length - SHOWN}` : shown;
}

function refresh() {
  const path = join(ROOT, CATALOGUE);
  const byId = scanMentions();
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => {
      const m = ROW.exec(line);
      if (!m) return line;
      const files = byId.get(m[1]) ?? new Map();
      return `| <a id="${m[1]}"></a>${m[1]} | ${m[2]} | ${column(files, 'code')} | ${column(files, 'docs')} | ${column(files, 'tests')} |`;
    });
  writeFileSync(path, lines.join('\n'));
  console.log(`${relative(ROOT, path)}: ${lines.filter((l) => ROW.test(l)).length} entries refreshed`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--refresh') refresh();

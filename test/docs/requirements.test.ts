import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM script shared with `npm run requirements:refresh`, no type declarations
import { CATALOGUE, ID, NONE, ROOT, kind, parseCatalogue, scanMentions } from '../../.ci/requirements.mjs';

type Row = { id: string; cells: string[]; code: string[]; docs: string[]; tests: string[] };
const rows: Row[] = parseCatalogue(readFileSync(join(ROOT, CATALOGUE), 'utf8'));
const ids = new Set(rows.map((r) => r.id));
const mentions: Map<string, Map<string, number>> = scanMentions();
const COLUMNS = ['code', 'docs', 'tests'] as const;

describe('docs/requirements.md, the catalogue of platform rules', () => {
  it('has one entry per id, each a well-formed id', () => {
    expect(rows.length).toBeGreaterThan(400);
    expect(ids.size).toBe(rows.length);
    for (const r of rows) expect(r.id.match(ID)?.[0]).toBe(r.id);
  });

  it('has an entry for every id that code, skills, docs or tests name', () => {
    const unknown = [...mentions].filter(([id]) => !ids.has(id)).map(([id, files]) => `${id} (${[...files.keys()].join(', ')})`);
    expect(unknown).toEqual([]);
  });

  it('has an anchor for every docs/requirements.md#… link', () => {
    const broken: string[] = [];
    for (const [, files] of mentions) {
      for (const file of files.keys()) {
        for (const [, anchor] of readFileSync(join(ROOT, file), 'utf8').matchAll(/docs\/requirements\.md#([\w-]+)/g)) {
          if (!ids.has(anchor!)) broken.push(`${file}: #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only files that exist and still name the id, in the column of their kind', () => {
    const wrong: string[] = [];
    for (const r of rows) {
      for (const col of COLUMNS) {
        for (const file of r[col]) {
          if (!existsSync(join(ROOT, file))) wrong.push(`${r.id}: ${file} does not exist`);
          else if (!mentions.get(r.id)?.has(file)) wrong.push(`${r.id}: ${file} does not name ${r.id}`);
          else if (kind(file) !== col) wrong.push(`${r.id}: ${file} is not a ${col} file`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`says "${NONE}" exactly where no file of that kind names the id`, () => {
    const wrong: string[] = [];
    for (const r of rows) {
      const named = [...(mentions.get(r.id)?.keys() ?? [])];
      COLUMNS.forEach((col, i) => {
        const any = named.some((f) => kind(f) === col);
        const none = r.cells[i] === NONE;
        if (any === none)
          wrong.push(
            `${r.id} ${col}: ${none ? `says ${NONE} but ${named.filter((f) => kind(f) === col).join(', ')} name it` : 'is empty'}`,
          );
      });
    }
    expect(wrong).toEqual([]);
  });
});

/**
 * Cross-skill imports (R-LOAD-15): every skill is loaded as an independent
 * module, so a handler must not import another skill's code; reuse goes through
 * `runtime_context.call_skill`. Only imports that reach into ANOTHER SKILL'S folder (a sibling
 * skill folder under the same skills root) are flagged: a built-in skill importing the
 * gateway's own `src/` (skills/datatable/handler.ts) or a shared library outside the skills
 * root is not a cross-skill import.
 */
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSkillFolder } from '../discover.ts';
import { isInside } from '../paths.ts';

/**
 * The imports of `file` (inside the skill folder `skillDir`, absolute) that reach into another
 * skill's folder, in source order, without duplicates.
 *
 * - JS/TS: a specifier that is relative (`./`, `../`), absolute (`/…`) or a `file:` URL and
 *   resolves inside a sibling folder of `skillDir` that is a skill folder ({@link isSkillFolder}).
 *   Bare package names (`node:fs`, `lodash`), files inside the own folder and files outside
 *   the skills root (`../../src/…`) are fine.
 * - Python (`language: 'python'`; names as `inspect_handler.py` prints them): a relative
 *   import whose dots climb above `skillDir` (`from ..other_skill import x`), or an absolute
 *   import whose first name is a sibling skill folder (`import other_skill.util`).
 */
export async function crossSkillImports(
  file: string,
  skillDir: string,
  language: 'ts' | 'js' | 'python',
  imports: readonly string[],
): Promise<string[]> {
  const out = new Set<string>();
  const here = dirname(file);
  for (const spec of imports) {
    if (language === 'python' ? await pythonLeaves(spec, here, skillDir) : await jsReachesSibling(spec, here, skillDir)) out.add(spec);
  }
  return [...out];
}

async function jsReachesSibling(spec: string, here: string, skillDir: string): Promise<boolean> {
  let target: string;
  if (spec.startsWith('file:')) {
    try {
      target = fileURLToPath(spec);
    } catch {
      return false;
    }
  } else if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..' || spec.startsWith('/')) {
    target = resolve(here, spec);
  } else {
    return false;
  }
  if (isInside(skillDir, target)) return false;
  const root = dirname(skillDir);
  if (!isInside(root, target)) return false;
  const first = relative(root, target).split(sep)[0] ?? '';
  if (first === '' || first === '..') return false;
  return isSkillFolder(join(root, first));
}

async function pythonLeaves(spec: string, here: string, skillDir: string): Promise<boolean> {
  const dots = /^\.*/.exec(spec)![0].length;
  if (dots > 0) {
    // Level 1 is the handler's own package (its folder); each further dot climbs one folder.
    let base = here;
    for (let i = 1; i < dots; i++) base = dirname(base);
    return !isInside(skillDir, base);
  }
  const first = spec.split('.')[0] ?? '';
  if (first === '' || first === basename(skillDir)) return false;
  return isSkillFolder(join(dirname(skillDir), first));
}

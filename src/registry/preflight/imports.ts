/**
 * Cross-skill imports (003 §NoImport, R-LOAD-15): every skill is loaded as an independent
 * module, so a handler must not import code from outside its own folder; reuse goes
 * through `runtime_context.call_skill`.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSkillFolder } from '../discover.ts';
import { isInside } from '../paths.ts';

/**
 * The imports of `file` (inside the skill folder `skillDir`, absolute) that reach outside
 * the folder, in source order, without duplicates.
 *
 * - JS/TS: a specifier that is relative (`./`, `../`), absolute (`/…`) or a `file:` URL and
 *   resolves outside `skillDir`. Bare package names (`node:fs`, `lodash`) are fine.
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
    if (language === 'python' ? await pythonLeaves(spec, here, skillDir) : jsLeaves(spec, here, skillDir)) out.add(spec);
  }
  return [...out];
}

function jsLeaves(spec: string, here: string, skillDir: string): boolean {
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
  return !isInside(skillDir, target);
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

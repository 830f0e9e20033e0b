// Whether dist/ (scripts/build.mjs) may run instead of the sources: used by bin/skillgate.js
// and by the start-up bench. SKILLGATE_FROM_SOURCE=1 always answers no (the test suite sets it).
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

/** True when dist/build.json exists and no source file of the bundle changed since it was built. */
export function distIsCurrent() {
  if (process.env.SKILLGATE_FROM_SOURCE === '1') return false;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(new URL('dist/build.json', root), 'utf8'));
  } catch {
    return false;
  }
  if (typeof stamp?.built_at !== 'number' || !Array.isArray(stamp.inputs)) return false;
  try {
    return stamp.inputs.every((f) => statSync(new URL(f, root)).mtimeMs < stamp.built_at);
  } catch {
    return false; // a source of the bundle was removed
  }
}

/**
 * Danger-scan checks against a skill reaching the platform itself (R-PRE-07; docs/danger-scan.md,
 * part of the rules `secrets.credential_file` and `fs.write_system`): the gateway's own configuration and keys
 * (`SKILLGATE_…` variables, the data dir's `secret.key`, another process's `/proc/<pid>/environ`),
 * and paths that climb out of the workspace (`join(workspace_dir, '../..')`) or name
 * `role-skills/` (a role planting skills for another role). Both are critical. They read every
 * language, and run on the written and the normalized code (so `'role-' + 'skills'` is seen).
 */
import type { ScanLang } from './strip-comments.ts';
import { callArgs, matchIndexes, stringLiterals } from './scan-text.ts';

/** `/proc/<anything>/environ|cmdline|mem|maps|auxv` (any process, not only `self`). */
const PROC_SECRET = /\/proc\/[^\s'"`;|&]*?\/(?:environ|cmdline|mem|maps|auxv)\b/;

/**
 * Offsets naming the gateway's secrets: `SKILLGATE_` variables, `secret.key`,
 * `/proc/<pid>/environ|cmdline|mem|maps|auxv` (shell: `/proc` and `$p/environ` apart).
 */
export function platformSecretHits(code: string, lang: ScanLang): { index: number }[] {
  const hits: { index: number }[] = [...matchIndexes(code, /SKILLGATE_|\bsecret\.key\b/), ...matchIndexes(code, PROC_SECRET)];
  // shell: `for p in /proc/[0-9]*; do cat $p/environ` — the /proc path and the file apart
  if (lang === 'sh' && /\/proc\b/.test(code)) hits.push(...matchIndexes(code, /\/(?:environ|cmdline|mem)\b/));
  // JS/Python: `'/proc/' + pid + '/environ'`, `os.path.join('/proc', pid, 'environ')`
  if (lang !== 'sh' && /\/proc\b/.test(code))
    hits.push(...stringLiterals(code).filter((l) => /(?:^|\/)(?:environ|cmdline|mem|maps|auxv)$/.test(l.value)));
  return hits;
}

/** A path-building call whose arguments are read for a `..` segment. */
const PATH_CALL = /(?<![\w$])(?:join|resolve|normalize|normpath|abspath|realpath|joinpath|Path|PurePath|PosixPath)\s*\(/;
/** A string literal that is or holds a `..` path segment. */
const DOTDOT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

/**
 * Offsets of paths that climb out of the workspace or name `role-skills/`: a path-building call
 * (`join`, `resolve`, `os.path.join`, `Path`, …) with a literal `..` segment, pathlib `/ '..'`,
 * two levels up without `..` (`dirname(dirname(ws))`, `.parent.parent`, `.parents[…]`),
 * and `role-skills` / `role_skills` anywhere.
 */
export function climbOutHits(code: string, lang: ScanLang): { index: number }[] {
  const hits: { index: number }[] = matchIndexes(code, /role[-_]skills\b/);
  if (lang !== 'sh') {
    for (const { index, m } of matchIndexes(code, PATH_CALL)) {
      const args = callArgs(code, index + m[0].length - 1);
      if (stringLiterals(args).some((s) => DOTDOT.test(s.value))) hits.push({ index });
    }
    hits.push(...matchIndexes(code, /\/\s*(['"])\.\.(?:\/[^'"]*)?\1/)); // pathlib: ws / '..'
    // two levels up without '..': dirname(dirname(ws)), os.path.dirname(os.path.dirname(ws)), Path(ws).parent.parent / .parents[1]
    hits.push(
      ...matchIndexes(code, /\bdirname\s*\(\s*(?:(?:os\s*\.\s*)?path\s*\.\s*)?dirname\s*\(|\.\s*parent\s*\.\s*parent\b|\.\s*parents\s*\[/),
    );
  }
  return hits;
}

/**
 * `actor_department_path` format and matching helpers. The directory lookup
 * that produces the segments lives in the identity module; these helpers fix the format.
 *
 * Requirement ids: R-DEPT-01, R-DEPT-02, R-DEPT-04, R-DEPT-07, R-DEPT-09.
 */

/** Maximum number of segments in a department path (R-DEPT-07). */
export const MAX_DEPARTMENT_DEPTH = 20;

/**
 * A segment as it may appear in a path: trimmed, with `/` replaced by the full-width `／`
 * (U+FF0F) so a name holding a slash cannot forge extra levels or a false
 * `"/<name>/"` match.
 */
function cleanSegment(s: string): string {
  return s.trim().replace(/\//g, '／');
}

/**
 * Build `actor_department_path` from department names ordered top level first, own
 * department last (R-DEPT-01/02): `["总部","销售中心","销售一部"]` → `/总部/销售中心/销售一部/`.
 * Blank names are dropped; more than 20 segments are truncated from the top, keeping the
 * own department (R-DEPT-07); no segments → "" (R-DEPT-04).
 */
export function departmentPath(segments: readonly string[]): string {
  const segs = segments.map(cleanSegment).filter((s) => s !== '');
  if (segs.length === 0) return '';
  return `/${segs.slice(-MAX_DEPARTMENT_DEPTH).join('/')}/`;
}

/** The non-empty segments of a department path, top level first. */
export function departmentSegments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/**
 * True when `path` contains the department `name` as whole segment(s) — the match with
 * surrounding slashes of R-DEPT-09: `deptPathContains("/总部/销售中心部/", "销售中心")` is
 * false. `name` may be given bare (`销售中心`), slash-wrapped (`/销售中心/`) or as several
 * levels (`销售中心/销售一部`). A blank name or path never matches.
 */
export function deptPathContains(path: string, name: string): boolean {
  const inner = departmentSegments(name.trim()).join('/');
  if (inner === '' || path === '') return false;
  return path.includes(`/${inner}/`);
}

/**
 * The own department — the last segment of `path`, "" when the path is empty (R-DEPT-02: decide
 * "own level" by the last segment, never by substring).
 */
export function currentDepartment(path: string): string {
  return departmentSegments(path).pop() ?? '';
}

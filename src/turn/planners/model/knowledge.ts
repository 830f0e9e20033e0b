/**
 * Retrieval over `knowledge` skills (R-FORM-04): they never become tools; their
 * text is cut into passages and the passages most related to the user's message are put into
 * the model's context.
 *
 * Ranking (documented in docs/model-planner.md): a message and a passage are each reduced to a
 * set of terms — lower-cased Latin/digit words of 2+ characters, and character bigrams of every
 * run of CJK characters (a single CJK character alone counts as a term). The score is the
 * number of shared terms divided by sqrt(|message terms| × |passage terms|) (cosine of binary
 * vectors). A passage needs a score ≥ {@link MIN_SCORE} and at least {@link MIN_SHARED} shared
 * terms; the best {@link MAX_HITS} passages are kept within {@link MAX_CHARS} characters.
 */
import type { SkillRecord } from '../../../registry/types.ts';

/** One retrieved passage. */
export interface KnowledgeHit {
  skill: string;
  text: string;
  score: number;
}

export const MIN_SCORE = 0.08;
export const MIN_SHARED = 2;
export const MAX_HITS = 3;
/** Total characters of retrieved text put into the prompt. */
export const MAX_CHARS = 6000;
/** Longest passage, characters (longer sections are cut at paragraph boundaries). */
export const PASSAGE_CHARS = 1500;

/** The term set of `text` (see the module comment). */
export function terms(text: string): Set<string> {
  const out = new Set<string>();
  const lower = text.toLowerCase();
  for (const w of lower.match(/[a-z0-9_]{2,}/g) ?? []) out.add(w);
  for (const run of lower.match(/[\u3400-\u9fff\uf900-\ufaff]+/gu) ?? []) {
    const chars = [...run];
    if (chars.length === 1) out.add(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  }
  return out;
}

/** Similarity of two term sets: shared count and cosine. */
export function similarity(q: Set<string>, p: Set<string>): { shared: number; score: number } {
  if (q.size === 0 || p.size === 0) return { shared: 0, score: 0 };
  let shared = 0;
  for (const t of q) if (p.has(t)) shared++;
  return { shared, score: shared / Math.sqrt(q.size * p.size) };
}

/** Cut a document into passages: by markdown headings, then paragraphs up to {@link PASSAGE_CHARS}. */
export function passages(doc: string): string[] {
  const sections = doc.split(/\n(?=#{1,6}\s)/);
  const out: string[] = [];
  for (const section of sections) {
    let cur = '';
    for (const para of section.split(/\n\s*\n/)) {
      const p = para.trim();
      if (p === '') continue;
      if (cur !== '' && cur.length + p.length + 2 > PASSAGE_CHARS) {
        out.push(cur);
        cur = '';
      }
      cur = cur === '' ? p.slice(0, PASSAGE_CHARS) : `${cur}\n\n${p}`;
    }
    if (cur !== '') out.push(cur);
  }
  return out;
}

/** The knowledge skills of a role: loaded, `skill_type: knowledge`, enabled for the role. */
export function knowledgeSkills(all: readonly SkillRecord[], enabled: readonly string[] | '*' = '*'): SkillRecord[] {
  const allowed = enabled === '*' || enabled.includes('*') ? null : new Set(enabled);
  return all.filter((s) => s.status === 'ok' && s.skillType === 'knowledge' && (allowed === null || allowed.has(s.name)));
}

/**
 * The passages of `skills` most related to `message` (best first), bounded by
 * {@link MAX_HITS} and {@link MAX_CHARS}. The skill's description is part of each passage's
 * terms, so a passage under a well-described skill matches on the topic too.
 */
export function retrieve(message: string, skills: readonly SkillRecord[]): KnowledgeHit[] {
  const q = terms(message);
  if (q.size === 0) return [];
  const scored: KnowledgeHit[] = [];
  for (const s of skills) {
    const desc = s.frontmatter.description ?? '';
    for (const text of passages(s.doc)) {
      const { shared, score } = similarity(q, terms(`${desc}\n${text}`));
      if (shared >= MIN_SHARED && score >= MIN_SCORE) scored.push({ skill: s.name, text, score });
    }
  }
  scored.sort((a, b) => b.score - a.score);
  const hits: KnowledgeHit[] = [];
  let used = 0;
  for (const h of scored) {
    if (hits.length >= MAX_HITS || used + h.text.length > MAX_CHARS) break;
    hits.push(h);
    used += h.text.length;
  }
  return hits;
}

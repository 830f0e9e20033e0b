/**
 * Notify targets (R-MSG-01): an admin-configured alias (`ops`) that stands for
 * Apprise URLs or an Apprise API config key with an optional tag, stored in
 * `skillgate.notify_targets` (migration 0011), or a bare Apprise URL given by the caller.
 *
 * Apprise URLs can carry credentials (bot tokens, passwords): they are stored, sent to the
 * Apprise API and shown to the admin by `notify target list` only masked, never logged.
 */
import type { Queryable } from '../store/db.ts';
import { APPRISE_KEY_RE } from './apprise-client.ts';

/** Where a notification goes: stateless URLs or a stored config key (+ tag). */
export type NotifyDestination = { kind: 'urls'; urls: string[] } | { kind: 'key'; key: string; tag: string | null };

/** One stored alias. */
export interface NotifyTarget {
  name: string;
  destination: NotifyDestination;
  created_at: Date;
  updated_at: Date;
}

/** A valid alias: letters, digits, `_`, `-`, `.`, CJK; 1-64 characters; no `://`. */
export const ALIAS_RE = /^[\p{L}\p{N}_.-]{1,64}$/u;

/** True for a bare Apprise URL (`schema://…`). */
export function isAppriseUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(s.trim());
}

/**
 * Parse what `notify target add <name> <spec…>` was given: one or more Apprise URLs, or one
 * `config-key[:tag]`. @returns the destination, or `{error}` naming the mistake
 */
export function parseTargetSpec(args: string[]): NotifyDestination | { error: string } {
  const parts = args.flatMap((a) => a.split(/\s+/)).filter((a) => a !== '');
  if (parts.length === 0) return { error: 'give Apprise URLs (schema://…) or a config key (key[:tag])' };
  if (parts.every(isAppriseUrl)) return { kind: 'urls', urls: parts };
  if (parts.some(isAppriseUrl)) return { error: 'mix of Apprise URLs and other words: give only URLs, or one config key[:tag]' };
  if (parts.length > 1) return { error: 'a config key is one word: key or key:tag' };
  const [key, ...rest] = parts[0]!.split(':');
  const tag = rest.join(':').trim();
  if (!key || !APPRISE_KEY_RE.test(key)) return { error: `"${key ?? ''}" is not an Apprise config key (1-128 of A-Z a-z 0-9 _ -)` };
  return { kind: 'key', key, tag: tag || null };
}

/**
 * A display form without secrets: the schema only (`tgram://***`). Apprise puts credentials in
 * every part of a URL (host included: `tgram://<bot token>/…`), so nothing else is shown.
 */
export function maskUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim());
  return m ? `${m[1]}://***` : '***';
}

/** A one-line description without secrets. */
export function describeDestination(d: NotifyDestination): string {
  return d.kind === 'urls' ? d.urls.map(maskUrl).join(' ') : `config key ${d.key}${d.tag ? ` tag ${d.tag}` : ''}`;
}

interface Row {
  name: string;
  urls: string[] | null;
  config_key: string | null;
  tag: string | null;
  created_at: Date;
  updated_at: Date;
}

function fromRow(r: Row): NotifyTarget {
  const destination: NotifyDestination = r.urls ? { kind: 'urls', urls: r.urls } : { kind: 'key', key: r.config_key ?? '', tag: r.tag };
  return { name: r.name, destination, created_at: r.created_at, updated_at: r.updated_at };
}

/** Add or replace alias `name`. @throws the database error */
export async function putNotifyTarget(q: Queryable, name: string, d: NotifyDestination, now: Date = new Date()): Promise<void> {
  await q.query(
    `INSERT INTO skillgate.notify_targets (name, urls, config_key, tag, created_at, updated_at)
     VALUES ($1, $2::jsonb, $3, $4, $5, $5)
     ON CONFLICT (name) DO UPDATE SET urls = EXCLUDED.urls, config_key = EXCLUDED.config_key,
       tag = EXCLUDED.tag, updated_at = EXCLUDED.updated_at`,
    [
      name,
      d.kind === 'urls' ? JSON.stringify(d.urls) : null,
      d.kind === 'key' ? d.key : null,
      d.kind === 'key' ? d.tag : null,
      now.toISOString(),
    ],
  );
}

/** The alias, or undefined. */
export async function getNotifyTarget(q: Queryable, name: string): Promise<NotifyTarget | undefined> {
  const { rows } = await q.query<Row>(
    'SELECT name, urls, config_key, tag, created_at, updated_at FROM skillgate.notify_targets WHERE name = $1',
    [name],
  );
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/** Every alias, by name. */
export async function listNotifyTargets(q: Queryable): Promise<NotifyTarget[]> {
  const { rows } = await q.query<Row>(
    'SELECT name, urls, config_key, tag, created_at, updated_at FROM skillgate.notify_targets ORDER BY name',
  );
  return rows.map(fromRow);
}

/** Remove an alias. @returns false when there was none */
export async function removeNotifyTarget(q: Queryable, name: string): Promise<boolean> {
  const res = await q.query('DELETE FROM skillgate.notify_targets WHERE name = $1', [name]);
  return res.rowCount > 0;
}

/**
 * What a `target` input means: a bare Apprise URL, or a stored alias.
 * @returns the destination and a log-safe label, or `{unknown: aliases}` when no alias has that name
 */
export async function resolveNotifyTarget(
  q: Queryable,
  target: string,
): Promise<{ destination: NotifyDestination; label: string } | { unknown: string[] }> {
  const t = target.trim();
  if (isAppriseUrl(t)) return { destination: { kind: 'urls', urls: [t] }, label: maskUrl(t) };
  const found = ALIAS_RE.test(t) ? await getNotifyTarget(q, t) : undefined;
  if (found) return { destination: found.destination, label: t };
  return { unknown: (await listNotifyTargets(q)).map((x) => x.name) };
}

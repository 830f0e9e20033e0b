/**
 * Who a web contact key is: the directory lookup of web sign-in (a display name for the
 * signed-in user; whether a token or a link may be issued; which identities the demo picker
 * offers and accepts).
 *
 * {@link identityDirectory} reads `src/identity/` through the `findContact` its caller gives it
 * (the gateway, the console, the CLI), so this folder depends on nothing but the lookup's shape;
 * tests pass a {@link staticDirectory}.
 */
import type { Queryable } from '../store/db.ts';

/** One contact as the web channel shows it. */
export interface WebContact {
  contact_key: string;
  name: string;
}

/** The directory lookups of the web channel. */
export interface WebDirectory {
  /** The contact, or null when `contactKey` is not in the directory of `orgId`. */
  find(orgId: string, contactKey: string): Promise<WebContact | null>;
}

/** The contacts the embedded default seeds (docs/configuration.md), offered by the demo picker. */
export const DEMO_CONTACT_KEYS = ['demo_reporter', 'demo_worker'] as const;

/** True for a key of {@link DEMO_CONTACT_KEYS}: the only contacts a demo sign-in may become. */
export function isDemoContact(contactKey: unknown): contactKey is (typeof DEMO_CONTACT_KEYS)[number] {
  return typeof contactKey === 'string' && (DEMO_CONTACT_KEYS as readonly string[]).includes(contactKey);
}

/** `findContact` of `src/identity/`. */
export type FindContact = (q: Queryable, orgId: string, contactKey: string) => Promise<unknown>;

function toContact(contactKey: string, c: unknown): WebContact | null {
  if (c === null || c === undefined || typeof c !== 'object') return null;
  const r = c as Record<string, unknown>;
  const name = [r.name, r.display_name, r.displayName].find((v): v is string => typeof v === 'string' && v !== '');
  return { contact_key: contactKey, name: name ?? contactKey };
}

/**
 * The directory of `src/identity/` on `q`, through its `findContact`.
 * @throws on lookup when `findContact` fails (the caller logs and refuses).
 */
export function identityDirectory(q: Queryable, findContact: FindContact): WebDirectory {
  return {
    async find(orgId, contactKey) {
      return toContact(contactKey, await findContact(q, orgId, contactKey));
    },
  };
}

/** A fixed in-memory directory (tests, and a gateway without a directory). */
export function staticDirectory(contacts: readonly WebContact[]): WebDirectory {
  const byKey = new Map(contacts.map((c) => [c.contact_key, c]));
  return {
    async find(_orgId, contactKey) {
      return byKey.get(contactKey) ?? null;
    },
  };
}

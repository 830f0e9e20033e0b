/**
 * Who a web contact key is: the directory lookup the web channel needs (a display name for
 * the signed-in user; which identities the demo picker offers and accepts).
 *
 * The default reads `src/identity/` (`findContact(q, orgId, contactKey)`): given by the caller
 * (the gateway, the CLI), else imported lazily so this adapter depends on nothing but the
 * lookup's shape (that import needs the sources, not the dist/ bundle); tests pass their own.
 */
import type { Queryable } from '../../src/channel/index.ts';

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
 * The directory of `src/identity/` on `q`, through `findContact` when given.
 * @throws on lookup when the identity module is missing or fails (the caller logs and refuses).
 */
export function identityDirectory(q: Queryable, findContact?: FindContact): WebDirectory {
  let find: Promise<FindContact> | undefined = findContact && Promise.resolve(findContact);
  const load = (): Promise<FindContact> => {
    // A computed specifier: the identity module is another task's file, loaded at run time.
    const spec = ['..', '..', 'src', 'identity', 'index.ts'].join('/');
    find ??= import(new URL(spec, import.meta.url).href).then((m: { findContact?: FindContact }) => {
      if (typeof m.findContact !== 'function') throw new Error('src/identity has no findContact');
      return m.findContact;
    });
    return find;
  };
  return {
    async find(orgId, contactKey) {
      const f = await load();
      return toContact(contactKey, await f(q, orgId, contactKey));
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

/**
 * Saved chains in PostgreSQL (`skillgate.chains`, migration 0012). Validation happens before
 * (validate.ts); this module only stores and reads.
 */
import type { Queryable } from '../store/db.ts';
import type { ChainDocument } from './document.ts';

/** A stored chain. */
export interface StoredChain {
  name: string;
  document: ChainDocument;
  enabled: boolean;
}

interface Row {
  name: string;
  document: ChainDocument;
  enabled: boolean;
}

/** Insert or replace a chain; `enabled` comes from the document (default true). */
export async function saveChain(db: Queryable, doc: ChainDocument): Promise<StoredChain> {
  const enabled = doc.enabled !== false;
  await db.query(
    `INSERT INTO skillgate.chains (name, document, enabled) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET document = EXCLUDED.document, enabled = EXCLUDED.enabled, updated_at = now()`,
    [doc.name, JSON.stringify(doc), enabled],
  );
  return { name: doc.name, document: { ...doc, enabled }, enabled };
}

/** One chain by name, or undefined. */
export async function getChain(db: Queryable, name: string): Promise<StoredChain | undefined> {
  const { rows } = await db.query<Row>('SELECT name, document, enabled FROM skillgate.chains WHERE name = $1', [name]);
  const r = rows[0];
  return r ? { name: r.name, document: { ...r.document, enabled: r.enabled }, enabled: r.enabled } : undefined;
}

/** Every chain (enabled or not), by name. */
export async function listChains(db: Queryable): Promise<StoredChain[]> {
  const { rows } = await db.query<Row>('SELECT name, document, enabled FROM skillgate.chains ORDER BY name');
  return rows.map((r) => ({ name: r.name, document: { ...r.document, enabled: r.enabled }, enabled: r.enabled }));
}

/**
 * Enable or disable a chain (disabled = hidden from the model, R-CHAIN-25).
 * @returns false when no chain has that name.
 */
export async function setChainEnabled(db: Queryable, name: string, enabled: boolean): Promise<boolean> {
  const res = await db.query('UPDATE skillgate.chains SET enabled = $2, updated_at = now() WHERE name = $1', [name, enabled]);
  return res.rowCount > 0;
}

/**
 * What the parts of the web channel share (one object per channel instance).
 */
import type { AdapterHost, Db, WebDirectory } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { WebHub } from './hub.ts';

export interface WebContext {
  db: Db;
  log: Logger;
  dataDir: string;
  orgId: string;
  /** Demo identities accepted (embedded default). */
  demo: boolean;
  directory: WebDirectory;
  hub: WebHub;
  /** Epoch ms. */
  clock: () => number;
  /** The core, once `start(host)` ran. */
  host: () => AdapterHost | undefined;
  /** Markdown → sanitized HTML. */
  renderHtml: (md: string) => string;
}

/** The display name of a contact (its key when the directory cannot say). Never throws. */
export async function displayNameOf(ctx: WebContext, contactKey: string): Promise<string> {
  try {
    return (await ctx.directory.find(ctx.orgId, contactKey))?.name ?? contactKey;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'web: directory lookup failed');
    return contactKey;
  }
}

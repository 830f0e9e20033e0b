/**
 * The artifact stage of the dialog layer (R-ART-01..10, R-ART-12, docs/configuration.md
 * §2): declared files, materialised URLs and files collected from the workspace root become the
 * envelope's top-level `artifacts`.
 *
 * Only the dialog layer (a chat turn, `skillgate skill run`) calls {@link processArtifacts}.
 * It is never applied to a result handed back to a calling skill through `call_skill`
 * (R-ART-12, R-CALL-14): a callee that returns only a URL leaves nothing on disk.
 */
import type { ArtifactRef, Envelope } from '../types.ts';
import { collectNewFiles } from './collect.ts';
import { declaredArtifacts } from './declared.ts';
import { text } from './messages.ts';
import type { ArtifactError, ArtifactLang, ArtifactLog, ArtifactOrigin, FoundArtifact, Snapshot } from './model.ts';
import { realOrUndefinedSync } from './paths.ts';
import type { Transport } from './http-get.ts';
import type { Resolver } from './net-guard.ts';
import { materializeUrls } from './url-fetch.ts';

export { snapshotWorkspace, collectNewFiles, EXCLUDED_EXTENSIONS } from './collect.ts';
export { declaredArtifacts, listDeclarations } from './declared.ts';
export { materializeUrls, MAX_DOWNLOAD_BYTES, MAX_PROBES, isPageOrJson } from './url-fetch.ts';
export { parseFetchAllow, compileFetchPolicy, isBlockedAddress } from './net-guard.ts';
export { inferMedia } from './media.ts';
export type { ArtifactError, ArtifactOrigin, FoundArtifact, Snapshot } from './model.ts';

/** What {@link ProcessArtifactsOptions.register} receives for each artifact. */
export type RegisteredArtifact = ArtifactRef & { origin: ArtifactOrigin; url?: string };

/** Options of {@link processArtifacts}. */
export interface ProcessArtifactsOptions {
  /** Absolute session workspace directory. */
  workspaceDir: string;
  /** {@link snapshotWorkspace} taken right before the skill ran. */
  before: Snapshot;
  /** `SKILLGATE_FETCH_ALLOW` entries (`host[:port]` or CIDR; see net-guard.ts). */
  fetchAllow?: readonly string[];
  /** Origins fetched without the private-address check (configured API roots). */
  trustedOrigins?: readonly string[];
  /** Per-file download limit in bytes (default 200 MB, R-ART-06). */
  maxBytes?: number;
  /** The user explicitly asked for a script this turn: collect .py/.js/.sh/… too (R-ART-09). */
  allowScripts?: boolean;
  /** Registers one artifact as a session attachment (R-ART-08); called in list order. */
  register?: (a: RegisteredArtifact) => Promise<void>;
  log: ArtifactLog;
  /** Language of `artifact_errors` texts (default zh-CN). */
  lang?: ArtifactLang;
  /** HTTP transport override (default pinned node:http/https). */
  transport?: Transport;
  /** Resolver override (default `dns.lookup(all)`). */
  resolve?: Resolver;
}

/**
 * Run the artifact stage on a normalised envelope, in the order of R-ART-02:
 * (1) materialise remote URLs into the workspace, (2) register every artifact —
 * declared ones (R-ART-01), materialised ones (R-ART-03..07) and files new or changed in the
 * workspace root since `before` (R-ART-09/10) — de-duplicated by real path, in that order.
 * Declared files outside the workspace are never registered (warning + note).
 *
 * @returns a shallow copy of `envelope` with top-level `artifacts: [{filename, local_path,
 *   media}]` (`[]` if none; a skill's own `artifacts` value is replaced — the key is reserved)
 *   and, when something could not be delivered, `artifact_errors: [{url | path, error}]`
 *   (appended to an existing array). A failed download or registration never fails the skill.
 *   Never throws (a `register` error is logged and noted, and that artifact left out).
 */
export async function processArtifacts(envelope: Envelope, opts: ProcessArtifactsOptions): Promise<Envelope> {
  const ws = opts.workspaceDir === opts.before.dir ? opts.before.dir : (realOrUndefinedSync(opts.workspaceDir) ?? opts.workspaceDir);
  const errors: ArtifactError[] = [];

  const materialised = await materializeUrls(envelope, {
    workspaceDir: ws,
    fetchAllow: opts.fetchAllow,
    trustedOrigins: opts.trustedOrigins,
    maxBytes: opts.maxBytes,
    log: opts.log,
    lang: opts.lang,
    transport: opts.transport,
    resolve: opts.resolve,
  });
  const declared = await declaredArtifacts(envelope, { workspaceDir: ws, log: opts.log, lang: opts.lang });
  const collected = await collectNewFiles(ws, opts.before, { allowScripts: opts.allowScripts });
  errors.push(...declared.errors, ...materialised.errors);

  const seen = new Set<string>();
  const found: FoundArtifact[] = [];
  for (const a of [...declared.artifacts, ...materialised.artifacts, ...collected]) {
    if (seen.has(a.real_path)) continue;
    seen.add(a.real_path);
    found.push(a);
  }

  const artifacts: ArtifactRef[] = [];
  for (const a of found) {
    const ref: ArtifactRef = { filename: a.filename, local_path: a.local_path, media: a.media };
    if (opts.register) {
      try {
        await opts.register({ ...ref, origin: a.origin, ...(a.url !== undefined ? { url: a.url } : {}) });
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        opts.log.warn({ file: a.local_path, err: detail }, 'artifact registration failed');
        errors.push({ path: a.local_path, error: text('registerFailed', opts.lang, { detail }) });
        continue;
      }
    }
    artifacts.push(ref);
  }

  const out: Envelope = { ...envelope, artifacts };
  if (errors.length > 0) {
    const prior = Array.isArray(envelope.artifact_errors) ? envelope.artifact_errors : [];
    out.artifact_errors = [...prior, ...errors];
  }
  return out;
}

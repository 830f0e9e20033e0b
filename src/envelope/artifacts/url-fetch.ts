/**
 * Remote URL materialisation (R-ART-03..07, A-14): the links a result
 * carries are downloaded into the session workspace root, so they become artifacts like any
 * file the skill wrote. Explicit fields are fetched unconditionally; ambiguous fields and body
 * links are probed first (HEAD, else a one-byte ranged GET) and skipped when they are a web
 * page or JSON; at most 8 probed links per result. Every hop passes the SSRF guard. A refused
 * or failed download never fails the skill: it becomes an `artifact_errors` note.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PLATFORM_DIR, loadFetchIndex, saveFetchIndex, type FetchIndex } from './fetch-index.ts';
import { filenameFromContentDisposition, filenameFromUrl, placeFile, sanitizeFilename, withExtension } from './filename.ts';
import { FetchError, guardedRequest, type Transport } from './http-get.ts';
import { inferMedia, mediaFromMime } from './media.ts';
import { text } from './messages.ts';
import type { ArtifactError, ArtifactLang, ArtifactLog, FoundArtifact } from './model.ts';
import { compileFetchPolicy, type FetchPolicy, type Resolver } from './net-guard.ts';
import { scanUrls, type UrlCandidate } from './url-scan.ts';

/** Per-file download limit in bytes (R-ART-06): 200 MB. */
export const MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024;
/** Probed links handled per result (R-ART-05, A-14: explicit fields do not count). */
export const MAX_PROBES = 8;
/** Safety net (platform choice): explicit links downloaded per result at most. */
export const MAX_EXPLICIT = 50;

/** Options of {@link materializeUrls}. */
export interface MaterializeOptions {
  /** Real path of the session workspace (downloads land in its root). */
  workspaceDir: string;
  /** `SKILLGATE_FETCH_ALLOW` entries: `host[:port]` or CIDR. */
  fetchAllow?: readonly string[];
  /** Origins fetched without the address check (configured API roots). */
  trustedOrigins?: readonly string[];
  /** Per-file limit in bytes (default {@link MAX_DOWNLOAD_BYTES}). */
  maxBytes?: number;
  /** Probed links per result (default {@link MAX_PROBES}). */
  maxProbes?: number;
  /** Explicit links per result (default {@link MAX_EXPLICIT}). */
  maxExplicit?: number;
  /** Socket idle timeout in ms (default 30000). */
  timeoutMs?: number;
  log: ArtifactLog;
  lang?: ArtifactLang;
  /** Replace the HTTP transport (default node:http/https, pinned). */
  transport?: Transport;
  /** Replace the resolver (default `dns.lookup(all)`). */
  resolve?: Resolver;
}

/** Content-Types a probe skips as "web page / JSON". */
export function isPageOrJson(contentType: string): boolean {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  return t === 'text/html' || t === 'application/xhtml+xml' || t === 'application/json' || /^[^/]+\/[^/]+\+json$/.test(t);
}

function contentTypeOf(res: IncomingMessage): string {
  const h = res.headers['content-type'];
  return typeof h === 'string' ? h.split(';')[0]!.trim().toLowerCase() : '';
}

/**
 * A URL safe to log: no user info, no query string or fragment (signed links carry their
 * credentials there). Unparseable input → `[invalid url]`.
 */
export function urlForLog(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search !== '' ? '?…' : ''}`;
  } catch {
    return '[invalid url]';
  }
}

interface Ctx {
  ws: string;
  policy: FetchPolicy;
  maxBytes: number;
  timeoutMs: number;
  transport?: Transport;
  resolve?: Resolver;
}

/** Probe one link: HEAD, falling back to `Range: bytes=0-0` GET. @returns its Content-Type. */
async function probe(url: URL, ctx: Ctx): Promise<string> {
  const common = { policy: ctx.policy, timeoutMs: ctx.timeoutMs, transport: ctx.transport, resolve: ctx.resolve };
  try {
    const { response } = await guardedRequest(url, { ...common, method: 'HEAD' });
    response.resume();
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return contentTypeOf(response);
  } catch (err) {
    if (err instanceof FetchError && err.key !== 'network') throw err; // refusals are final
  }
  const { response } = await guardedRequest(url, { ...common, method: 'GET', headers: { range: 'bytes=0-0' } });
  const status = response.statusCode ?? 0;
  const type = contentTypeOf(response);
  response.destroy();
  if (status < 200 || status >= 300) throw new FetchError('status', { status });
  return type;
}

/** A byte-counting, hashing pass-through that fails beyond `max` bytes. */
function limiter(max: number, hash: ReturnType<typeof createHash>): Transform & { bytes: () => number } {
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (bytes > max) return cb(new FetchError('tooLarge', { limit: max }));
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  return Object.assign(t, { bytes: () => bytes });
}

/** Download one link into the workspace root. @throws {@link FetchError}. */
async function download(cand: UrlCandidate, ctx: Ctx): Promise<{ artifact: FoundArtifact; entry: FetchIndex[string] }> {
  const original = new URL(cand.url);
  const { response, url: finalUrl } = await guardedRequest(original, {
    policy: ctx.policy,
    method: 'GET',
    timeoutMs: ctx.timeoutMs,
    transport: ctx.transport,
    resolve: ctx.resolve,
  });
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    response.destroy();
    throw new FetchError('status', { status });
  }
  const declaredLength = Number(response.headers['content-length']);
  if (Number.isFinite(declaredLength) && declaredLength > ctx.maxBytes) {
    response.destroy();
    throw new FetchError('tooLarge', { limit: ctx.maxBytes });
  }
  const tmpDir = path.join(ctx.ws, PLATFORM_DIR, 'tmp');
  await mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `${randomUUID()}.part`);
  const hash = createHash('sha256');
  const counter = limiter(ctx.maxBytes, hash);
  try {
    await pipeline(response, counter, createWriteStream(tmp, { flags: 'wx' }));
  } catch (err) {
    response.destroy();
    await unlink(tmp).catch(() => undefined);
    if (err instanceof FetchError) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    throw new FetchError('network', { detail }, detail);
  }
  const contentType = contentTypeOf(response);
  const fromHeader = filenameFromContentDisposition(
    typeof response.headers['content-disposition'] === 'string' ? response.headers['content-disposition'] : undefined,
  );
  const declared = cand.filename !== undefined ? sanitizeFilename(cand.filename) : undefined;
  const base = declared ?? fromHeader ?? filenameFromUrl(original) ?? filenameFromUrl(finalUrl);
  const generated = base === undefined;
  const name = withExtension(base ?? 'download', contentType || undefined);
  const digest = hash.digest('hex');
  const placed = await placeFile(tmp, ctx.ws, name, digest, generated);
  const filename = path.basename(placed);
  const media =
    cand.media ?? (contentType !== '' && contentType !== 'application/octet-stream' ? mediaFromMime(contentType) : inferMedia(filename));
  return {
    artifact: { filename, local_path: placed, real_path: placed, media, origin: 'url', url: cand.url },
    entry: {
      status: 'downloaded',
      filename,
      size: counter.bytes(),
      sha256: digest,
      ...(contentType !== '' ? { content_type: contentType } : {}),
      at: new Date().toISOString(),
    },
  };
}

/** The artifact an earlier pass already materialised, when its file is still there unchanged in size. */
async function reuse(cand: UrlCandidate, index: FetchIndex, ws: string): Promise<FoundArtifact | undefined> {
  const entry = index[cand.url];
  if (entry?.status !== 'downloaded') return undefined;
  const file = path.join(ws, entry.filename);
  try {
    const st = await stat(file);
    if (!st.isFile() || st.size !== entry.size) return undefined;
  } catch {
    return undefined;
  }
  const media = cand.media ?? (entry.content_type ? mediaFromMime(entry.content_type) : inferMedia(entry.filename));
  return { filename: entry.filename, local_path: file, real_path: file, media, origin: 'url', url: cand.url };
}

/**
 * Materialise the links of `result` (R-ART-03..07): explicit links first (unconditionally; at
 * most `maxExplicit`), then probed links (at most `maxProbes` probes, A-14). A link already
 * materialised in this workspace (the `.skillgate/fetched.json` record, file still present) or
 * already probed as a page is not requested again (R-ART-07), and an entry with an existing
 * `local_path` is not scanned at all. Downloads beyond `maxBytes` are aborted and leave no
 * partial file (R-ART-06).
 * @returns the downloaded artifacts (origin `url`), the notes of refused/failed links, and the
 * number of probes made. Never throws.
 */
export async function materializeUrls(
  result: Record<string, unknown>,
  opts: MaterializeOptions,
): Promise<{ artifacts: FoundArtifact[]; errors: ArtifactError[]; probes: number }> {
  const candidates = await scanUrls(result, opts.workspaceDir);
  if (candidates.length === 0) return { artifacts: [], errors: [], probes: 0 };
  const ctx: Ctx = {
    ws: opts.workspaceDir,
    policy: compileFetchPolicy(opts.fetchAllow, opts.trustedOrigins),
    maxBytes: opts.maxBytes ?? MAX_DOWNLOAD_BYTES,
    timeoutMs: opts.timeoutMs ?? 30_000,
    transport: opts.transport,
    resolve: opts.resolve,
  };
  const maxProbes = opts.maxProbes ?? MAX_PROBES;
  const maxExplicit = opts.maxExplicit ?? MAX_EXPLICIT;
  const artifacts: FoundArtifact[] = [];
  const errors: ArtifactError[] = [];
  const updates: FetchIndex = {};
  const index = await loadFetchIndex(ctx.ws);
  let probes = 0;
  let explicitCount = 0;

  const note = (url: string, err: unknown): void => {
    const error = err instanceof FetchError ? text(err.key, opts.lang, err.vars) : text('network', opts.lang, { detail: String(err) });
    errors.push({ url, error });
    opts.log.warn({ url: urlForLog(url), error: err instanceof Error ? err.message : String(err) }, 'artifact URL not materialised');
  };

  for (const cand of candidates) {
    const known = await reuse(cand, index, ctx.ws);
    if (known) {
      artifacts.push(known);
      continue;
    }
    try {
      if (cand.kind === 'explicit') {
        if (explicitCount >= maxExplicit) {
          if (explicitCount === maxExplicit) errors.push({ url: cand.url, error: text('tooMany', opts.lang, { limit: maxExplicit }) });
          explicitCount++;
          continue;
        }
        explicitCount++;
      } else {
        if (index[cand.url]?.status === 'skipped') continue;
        if (probes >= maxProbes) {
          opts.log.debug({ url: urlForLog(cand.url) }, 'probe limit reached: link left as is');
          continue;
        }
        probes++;
        const type = await probe(new URL(cand.url), ctx);
        if (isPageOrJson(type)) {
          updates[cand.url] = { status: 'skipped', content_type: type, at: new Date().toISOString() };
          continue;
        }
      }
      const { artifact, entry } = await download(cand, ctx);
      artifacts.push(artifact);
      updates[cand.url] = entry;
      opts.log.info({ url: urlForLog(cand.url), file: artifact.filename }, 'artifact URL materialised');
    } catch (err) {
      note(cand.url, err);
    }
  }
  try {
    await saveFetchIndex(ctx.ws, updates);
  } catch (err) {
    opts.log.warn({ err }, 'could not write the URL materialisation record');
  }
  return { artifacts, errors, probes };
}

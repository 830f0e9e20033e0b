import { readdir, readFile, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { processArtifacts, snapshotWorkspace, type Snapshot } from '../../src/envelope/artifacts/index.ts';
import { materializeUrls } from '../../src/envelope/artifacts/url-fetch.ts';
import type { Envelope } from '../../src/envelope/types.ts';
import { PNG, captureLogger, removeDir, startServer, tempDir, type TestServer } from './helpers.ts';

let server: TestServer;
let ws: string;
let before: Snapshot;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  ws = realpathSync(await tempDir('sg-url-'));
  before = await snapshotWorkspace(ws);
  server.requests.length = 0;
});
afterEach(async () => {
  await removeDir(ws);
});

/** Root files of the workspace (the platform's hidden folders excluded). */
async function rootFiles(): Promise<string[]> {
  return (await readdir(ws)).filter((n) => !n.startsWith('.')).sort();
}

function run(env: Envelope, extra: Partial<Parameters<typeof processArtifacts>[1]> = {}) {
  const { log } = captureLogger();
  return processArtifacts(env, { workspaceDir: ws, before, log, fetchAllow: ['127.0.0.1'], ...extra });
}

describe('SSRF guard (R-ART-03, SKILLGATE_FETCH_ALLOW)', () => {
  it('R-ART-03, §11: by default a URL pointing at 127.0.0.1 is not fetched: the server sees no request and artifact_errors explains', async () => {
    const url = `${server.base}/img.png`;
    const env = await run({ success: true, image_url: url }, { fetchAllow: [] });
    expect(server.requests).toEqual([]);
    expect(env.success).toBe(true);
    expect(env.artifacts).toEqual([]);
    const errors = env.artifact_errors as Array<{ url: string; error: string }>;
    expect(errors).toHaveLength(1);
    expect(errors[0]!.url).toBe(url);
    expect(errors[0]!.error).toContain('SKILLGATE_FETCH_ALLOW');
    expect(errors[0]!.error).toContain('127.0.0.1');
    expect(await rootFiles()).toEqual([]);
  });

  it('R-ART-03: log lines never carry a signed URL query string (secrets never in logs)', async () => {
    const { log, lines } = captureLogger();
    const url = `${server.base}/img.png?X-Amz-Signature=SIG-SECRET-123`;
    const env = await processArtifacts({ image_url: url }, { workspaceDir: ws, before, log });
    expect((env.artifact_errors as Array<{ url: string }>)[0]!.url).toBe(url);
    const logged = JSON.stringify(lines());
    expect(logged).toContain('/img.png?…');
    expect(logged).not.toContain('SIG-SECRET-123');
  });

  it('§11: the host:port form of SKILLGATE_FETCH_ALLOW allows that port only', async () => {
    const env = await run({ image_url: `${server.base}/img.png` }, { fetchAllow: [`127.0.0.1:${server.port}`] });
    expect(env.artifacts).toEqual([{ filename: 'img.png', local_path: path.join(ws, 'img.png'), media: 'image' }]);
    server.requests.length = 0;
    const other = await run({ image_url: `${server.base}/img2.png` }, { fetchAllow: [`127.0.0.1:${server.port + 1}`] });
    expect(server.requests).toEqual([]);
    expect(other.artifact_errors).toHaveLength(1);
  });

  it('§11: a CIDR entry allows the range; a trusted origin is fetched without the address check', async () => {
    const viaCidr = await run({ image_url: `${server.base}/img.png` }, { fetchAllow: ['127.0.0.0/8'] });
    expect((viaCidr.artifacts as unknown[]).length).toBe(1);
    before = await snapshotWorkspace(ws);
    const viaOrigin = await run({ file_url: `${server.base}/cd` }, { fetchAllow: [], trustedOrigins: [`${server.base}/api`] });
    expect((viaOrigin.artifacts as unknown[]).length).toBe(1);
  });

  it('R-ART-03: a redirect to a private address (cloud metadata) is refused', async () => {
    const env = await run({ download_url: `${server.base}/redirect-private` }, { fetchAllow: [`127.0.0.1:${server.port}`] });
    expect(server.requests.map((r) => r.path)).toEqual(['/redirect-private']);
    const errors = env.artifact_errors as Array<{ url: string; error: string }>;
    expect(errors[0]!.error).toContain('169.254.169.254');
    expect(env.artifacts).toEqual([]);
  });

  it('R-ART-03: redirects are followed (each hop checked) and a loop stops after 5', async () => {
    const ok = await run({ download_url: `${server.base}/redirect-ok` });
    expect(ok.artifacts).toEqual([{ filename: 'redirect-ok.png', local_path: path.join(ws, 'redirect-ok.png'), media: 'image' }]);
    server.requests.length = 0;
    const loop = await run({ download_url: `${server.base}/loop` }, { lang: 'en' });
    expect(server.requests.length).toBe(6);
    expect(loop.artifact_errors).toEqual([{ url: `${server.base}/loop`, error: 'download failed: too many redirects' }]);
  });

  it('R-ART-03: a host name is resolved once, checked, and the connection pinned to the checked address', async () => {
    const resolve = async (host: string) =>
      host === 'cdn.example.test' ? [{ address: '127.0.0.1', family: 4 as const }] : [{ address: '10.1.2.3', family: 4 as const }];
    const env = await run(
      { image_url: `http://cdn.example.test:${server.port}/img.png`, video_url: `http://evil.example.test:${server.port}/v.png` },
      { resolve },
    );
    expect(server.requests.map((r) => [r.path, r.host])).toEqual([['/img.png', `cdn.example.test:${server.port}`]]);
    expect((env.artifacts as Array<{ filename: string }>).map((a) => a.filename)).toEqual(['img.png']);
    expect((env.artifact_errors as Array<{ error: string }>)[0]!.error).toContain('10.1.2.3');
  });
});

describe('URL materialisation (R-ART-03..07, A-14)', () => {
  it('R-ART-03, R-ART-04: the PNG is downloaded, explicit image_url unconditionally, HTML/JSON ambiguous links probed and skipped', async () => {
    const env = await run({
      success: true,
      image_url: `${server.base}/page-explicit.html`,
      url: `${server.base}/page.html`,
      link: `${server.base}/data.json`,
      href: `${server.base}/problem`,
      src: `${server.base}/pic.png`,
    });
    const seen = server.requests.map((r) => `${r.method} ${r.path}`);
    expect(seen).toEqual([
      'GET /page-explicit.html',
      'HEAD /page.html',
      'HEAD /data.json',
      'HEAD /problem',
      'HEAD /pic.png',
      'GET /pic.png',
    ]);
    const names = (env.artifacts as Array<{ filename: string; media: string }>).map((a) => [a.filename, a.media]);
    expect(names).toEqual([
      ['page-explicit.html', 'image'],
      ['pic.png', 'image'],
    ]);
    expect(await readFile(path.join(ws, 'pic.png'))).toEqual(PNG);
    expect(await rootFiles()).toEqual(['page-explicit.html', 'pic.png']);
  });

  it('R-ART-03: explicit fields take a string or a string array, nested under data too', async () => {
    const env = await run({
      success: true,
      urls: [`${server.base}/a.png`, `${server.base}/b.png`],
      data: { file_urls: [`${server.base}/c.png`], cdn_url: `${server.base}/d.png` },
    });
    expect((env.artifacts as Array<{ filename: string }>).map((a) => a.filename)).toEqual(['a.png', 'b.png', 'c.png', 'd.png']);
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('R-ART-05, A-14: 10 ambiguous links ⇒ at most 8 probes; explicit fields do not count', async () => {
    const links = Array.from({ length: 10 }, (_, i) => `${server.base}/page${i}.html`);
    const { log } = captureLogger();
    const result = await materializeUrls(
      { display_md: `结果：\n${links.map((l, i) => `- [第${i}页](${l})`).join('\n')}`, image_url: `${server.base}/x.png` },
      { workspaceDir: ws, log, fetchAllow: ['127.0.0.1'] },
    );
    expect(result.probes).toBe(8);
    const probed = new Set(server.requests.filter((r) => r.path.startsWith('/page')).map((r) => r.path));
    expect(probed.size).toBe(8);
    expect(server.requests.filter((r) => r.path === '/x.png').length).toBe(1);
  });

  it('R-ART-04: HEAD refused (405) ⇒ the probe falls back to a one-byte ranged GET', async () => {
    const env = await run({ success: true, text: `see ${server.base}/head405/pic。` });
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.range ?? ''}`.trim())).toEqual([
      'HEAD /head405/pic',
      'GET /head405/pic bytes=0-0',
      'GET /head405/pic',
    ]);
    expect(env.artifacts).toEqual([{ filename: 'pic.png', local_path: path.join(ws, 'pic.png'), media: 'image' }]);
  });

  it('R-ART-06: a body over the limit is aborted and no partial file remains (streamed and declared lengths)', async () => {
    const env = await run(
      { file_url: `${server.base}/big.bin`, download_url: `${server.base}/big-declared.bin` },
      { maxBytes: 10_000, lang: 'en' },
    );
    expect(env.artifacts).toEqual([]);
    expect(env.artifact_errors).toEqual([
      { url: `${server.base}/big.bin`, error: 'download aborted: the file exceeds the per-file limit of 10000 bytes' },
      { url: `${server.base}/big-declared.bin`, error: 'download aborted: the file exceeds the per-file limit of 10000 bytes' },
    ]);
    expect(await rootFiles()).toEqual([]);
    expect(await readdir(path.join(ws, '.skillgate', 'tmp'))).toEqual([]);
  });

  it('R-ART-07: the second pass over the same result downloads nothing and lists the same artifacts', async () => {
    const env: Envelope = {
      image_url: `${server.base}/img.png`,
      display_md: `[报告](${server.base}/page.html) ![图](${server.base}/inline.png)`,
    };
    const first = await run(env);
    const count = server.requests.length;
    expect(count).toBe(4); // GET img, HEAD page, HEAD inline, GET inline
    before = await snapshotWorkspace(ws);
    const second = await run(env);
    expect(server.requests.length).toBe(count);
    expect(second.artifacts).toEqual(first.artifacts);
    expect(await rootFiles()).toEqual(['img.png', 'inline.png']);
  });

  it('R-ART-07: an entry that already carries an existing local_path is skipped; a missing one is downloaded', async () => {
    await writeFile(path.join(ws, 'have.png'), PNG);
    const env = await run({
      images: [
        { local_path: path.join(ws, 'have.png'), url: `${server.base}/have.png` },
        { local_path: path.join(ws, 'gone.png'), url: `${server.base}/gone.png` },
        `${server.base}/plain.png`,
      ],
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/gone.png', '/plain.png']);
    expect((env.artifacts as Array<{ filename: string }>).map((a) => a.filename)).toEqual(['have.png', 'gone.png', 'plain.png']);
    expect(env).not.toHaveProperty('artifact_errors');
  });

  it('R-ART-03: file names: Content-Disposition filename* with Chinese characters wins; no name ⇒ download_<n> + extension', async () => {
    const env = await run({ file_url: `${server.base}/cd`, image_url: `${server.base}/?id=3` });
    expect(env.artifacts).toEqual([
      { filename: '季度报告 2026.pdf', local_path: path.join(ws, '季度报告 2026.pdf'), media: 'file' },
      { filename: 'download_1.png', local_path: path.join(ws, 'download_1.png'), media: 'image' },
    ]);
  });

  it('R-ART-07: never overwrites an existing different file: the download gets _1', async () => {
    await writeFile(path.join(ws, 'img.png'), 'the user own file');
    before = await snapshotWorkspace(ws);
    const env = await run({ image_url: `${server.base}/other/img.png` });
    expect(env.artifacts).toEqual([{ filename: 'img_1.png', local_path: path.join(ws, 'img_1.png'), media: 'image' }]);
    expect(await readFile(path.join(ws, 'img.png'), 'utf8')).toBe('the user own file');
  });

  it('R-ART-02: URLs are materialised before any artifact is registered', async () => {
    const events: string[] = [];
    const env = await run(
      { image_url: `${server.base}/img.png`, files: [] },
      {
        register: async (a) => {
          events.push(`register ${a.filename} ${a.origin} after ${server.requests.length} requests`);
        },
      },
    );
    expect(events).toEqual(['register img.png url after 1 requests']);
    expect((env.artifacts as unknown[]).length).toBe(1);
  });

  it('R-ART-03: a 404 is a note, not a failure of the skill', async () => {
    const env = await run({ success: true, file_url: `${server.base}/nothing.pdf` }, { lang: 'en' });
    expect(env.success).toBe(true);
    expect(env.artifact_errors).toEqual([{ url: `${server.base}/nothing.pdf`, error: 'download failed: the server answered HTTP 404' }]);
  });
});

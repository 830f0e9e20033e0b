/**
 * notify through the REAL Apprise library: a small fixture server
 * (test/fixtures/apprise/apprise_api_server.py) exposes the Apprise API's stateless
 * `POST /notify/` on top of Debian's `apprise` package; the notification — title, body and an
 * attachment — arrives at a loopback `json://` receiver. `.ci/run` installs `apprise`; this
 * test is not conditional: without the library it fails and says so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createNotifyAdapter, runNotify } from '../../src/orchestration/notify.ts';
import { putNotifyTarget } from '../../src/orchestration/notify-targets.ts';
import { messagingEnv, type MessagingEnv } from './helpers.ts';

const SERVER_PY = fileURLToPath(new URL('../fixtures/apprise/apprise_api_server.py', import.meta.url));

/** The first Python that can import apprise (Debian's lives in /usr/bin/python3). */
function appricePython(): string {
  const candidates = [process.env.APPRISE_PYTHON, '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  for (const py of candidates) {
    if (spawnSync(py, ['-c', 'import apprise'], { stdio: 'ignore' }).status === 0) return py;
  }
  throw new Error(
    `no python3 here can import apprise (tried ${candidates.join(', ')}): install Debian's apprise package (apt-get install -y apprise)`,
  );
}

interface Received {
  path: string;
  body: {
    version?: string;
    title?: string;
    message?: string;
    type?: string;
    attachments?: { filename: string; base64: string; mimetype: string }[];
  };
}

describeEachEngine('notify through the real Apprise library', (db) => {
  let env: MessagingEnv;
  let py: ChildProcess;
  let sink: Server;
  let sinkPort = 0;
  const received: Received[] = [];

  beforeAll(async () => {
    await migrate(db());
    sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Received['body'] });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
    sinkPort = (sink.address() as AddressInfo).port;

    py = spawn(appricePython(), [SERVER_PY], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      py.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /PORT (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      py.once('exit', (code) => reject(new Error(`apprise fixture server exited with ${code}`)));
    });
    env = messagingEnv(db(), { waitMs: 20_000 });
    env.adapters.set('notify:default', createNotifyAdapter({ baseUrl: `http://127.0.0.1:${port}` }));
    await putNotifyTarget(db(), 'ops', { kind: 'urls', urls: [`json://127.0.0.1:${sinkPort}/ops-hook`] });
  }, 60_000);

  afterAll(async () => {
    await env?.stop();
    py?.kill();
    await new Promise<void>((r) => sink?.close(() => r()) ?? r());
  });

  it('R-MSG-01 R-MSG-03 alias → Apprise API → apprise json:// → the loopback receiver gets title, body and the attachment', async () => {
    received.length = 0;
    writeFileSync(join(env.workspace, 'report.txt'), '维修报告：3号机已修复');
    const r = await runNotify(
      { message: '3号机维修完成，费用 1200 元', title: '维修完成', target: 'ops', type: 'success', attach: 'report.txt' },
      env.ctx(),
    );
    expect(r).toMatchObject({ sent: true, ok: true, status: 'sent' });
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/ops-hook');
    expect(received[0]!.body).toMatchObject({ title: '维修完成', message: '3号机维修完成，费用 1200 元', type: 'success' });
    const att = received[0]!.body.attachments ?? [];
    expect(att.map((a) => [a.filename, Buffer.from(a.base64, 'base64').toString('utf8')])).toEqual([
      ['report.txt', '维修报告：3号机已修复'],
    ]);
  });

  it('R-MSG-04 a target apprise cannot reach gives sent:false with the server reason', async () => {
    // a closed port: apprise's json:// POST fails, the fixture answers 424 like the real API
    const r = await runNotify({ message: 'x', target: 'json://127.0.0.1:9/none' }, env.ctx());
    expect(r).toMatchObject({ sent: false, ok: false, status: 'failed' });
    expect(String(r.error)).toBe('Apprise API HTTP 424: One or more notification could not be sent.');
  });
});

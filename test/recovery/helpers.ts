/**
 * Real-process crash-recovery rig: `skillgate serve` children (bin/skillgate.js, as a user runs
 * it) on a Telegram channel whose Bot API is the loopback fake (test/adapters/telegram/
 * fake-telegram.ts), with the `slow_ticket` test skill (test/fixtures/recovery/), which writes a
 * line per run to a file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startFakePlatform, type FakePlatform } from '../../adapters/contract/index.ts';
import { installTelegram, SECRET, TOKEN, telegramBody } from '../adapters/telegram/fake-telegram.ts';
import { BIN, childEnv } from '../helpers/cli.ts';

export const RECOVERY_SKILLS = fileURLToPath(new URL('../fixtures/recovery/', import.meta.url));
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A gateway child and what it printed. */
export interface Gw {
  child: ChildProcess;
  /** Resolves with the port once it listens. */
  ready: Promise<number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  stdout(): string;
}

/** Start `skillgate serve` (or `npm start` with `npm: true`, in its own process group); `nodeArgs` go before the script. */
export function spawnGateway(env: Record<string, string>, opts: { npm?: boolean; nodeArgs?: string[] } = {}): Gw {
  const child = opts.npm
    ? spawn('npm', ['start', '--silent'], {
        cwd: REPO,
        env: childEnv({ PORT: '0', ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      })
    : spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, 'serve'], {
        cwd: REPO,
        env: childEnv({ PORT: '0', ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  let err = '';
  let out = '';
  const ready = new Promise<number>((resolve, reject) => {
    const look = (): void => {
      const all = err + out;
      const m = /"port":(\d+),[^\n]*skillgate listening/.exec(all);
      if (m) resolve(Number(m[1]));
    };
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      look();
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      look();
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${err}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return { child, ready, exited, stderr: () => err, stdout: () => out };
}

/** The fake Bot API. */
export async function startTelegram(): Promise<FakePlatform> {
  const fake = await startFakePlatform();
  installTelegram(fake);
  return fake;
}

/** The environment of a gateway on `telegram` with the recovery skills. */
export function gatewayEnv(telegram: FakePlatform, runsFile: string, extra: Record<string, string>): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: telegram.baseUrl,
    TELEGRAM_MODE: 'webhook',
    SKILLGATE_SKILL_DIRS: RECOVERY_SKILLS,
    RECOVERY_RUNS_FILE: runsFile,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

let seq = 0;
const base = 810_000 + (process.pid % 1000) * 100;

/** POST a private-chat text message from `userId` to the gateway at `port`. */
export async function sendText(port: number, userId: number, text: string): Promise<void> {
  const n = base + ++seq;
  const command = /^\/\w+/.exec(text)?.[0];
  const res = await fetch(`http://127.0.0.1:${port}/webhooks/telegram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
    body: JSON.stringify({
      update_id: n,
      message: {
        message_id: n,
        date: Math.floor(Date.now() / 1000),
        chat: { id: userId, type: 'private', first_name: 'A' },
        from: { id: userId, is_bot: false, first_name: 'A', language_code: 'zh-hans' },
        text,
        ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command.length }] } : {}),
      },
    }),
  });
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
}

/** POST a button press (`data` as the gateway sent it) from `userId`. */
export async function pressButton(port: number, userId: number, data: string, messageId: number): Promise<void> {
  const n = base + ++seq;
  const res = await fetch(`http://127.0.0.1:${port}/webhooks/telegram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
    body: JSON.stringify({
      update_id: n,
      callback_query: {
        id: `cq${n}`,
        from: { id: userId, is_bot: false, first_name: 'A', language_code: 'zh-hans' },
        message: {
          message_id: messageId,
          from: { id: 10000099, is_bot: true, first_name: 'bot' },
          chat: { id: userId, type: 'private', first_name: 'A' },
          date: Math.floor(Date.now() / 1000),
          text: 'x',
        },
        chat_instance: '-7000000000000000001',
        data,
      },
    }),
  });
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
}

/** A message the gateway sent to `userId`: its text and button payloads. */
export interface Sent {
  text: string;
  buttons: string[];
}

/** Messages sent to `userId` so far, in order. */
export function sentTo(telegram: FakePlatform, userId: number): Sent[] {
  return telegram
    .calls('/bot:token/:method', 'POST')
    .filter((r) => r.params.method === 'sendMessage' && String(telegramBody(r).chat_id) === String(userId))
    .map((r) => {
      const b = telegramBody(r);
      const markup = (typeof b.reply_markup === 'string' ? JSON.parse(b.reply_markup) : b.reply_markup) as
        | { inline_keyboard?: { callback_data?: string }[][] }
        | undefined;
      return { text: String(b.text ?? ''), buttons: (markup?.inline_keyboard ?? []).flat().map((x) => x.callback_data ?? '') };
    });
}

/** The runs `slow_ticket` recorded (one per started call). */
export function runs(file: string): { pid: number; title: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { pid: number; title: string });
}

/** Poll `cond` until true (a condition, not a duration: throws after `ms`). */
export async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string, log?: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not met in time${log ? `\n${log().slice(-4000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

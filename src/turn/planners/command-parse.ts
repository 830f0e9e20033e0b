/**
 * The chat command grammar (README.md "Start"), parsed without a model.
 *
 * - `/<skill> <args>`: `<args>` is one JSON object, or `key=value` pairs separated by spaces.
 *   A value is parsed as JSON when it is valid JSON (`n=5` → 5, `ok=true`, `ids=[1, 2]`,
 *   `f={"a": 1}` — a bracketed value may contain spaces), else taken as a string. Quoted
 *   values (`"…"`, `'…'`, or Chinese `“…”`) are always strings, with `\"` and `\\` escapes
 *   (`note="a \"b\""`). Keys and values may be Chinese. An all-digit value longer than a safe
 *   integer stays a string (ids, phone numbers keep every digit). **A repeated key is refused**
 *   (`invalid`): silently keeping one of two values could run a write with the wrong one.
 * - `/<skill>__<sub>` names a sub-command; `-` may be typed as `_` (resolved by the planner
 *   against the tool list).
 * - `/cmd@<bot>`: addressed to this bot when `<bot>` equals `opts.botUsername` (case-
 *   insensitive) or when no bot username is known; another bot's name → `none`.
 * - Reserved: `/help [topic]` (also `/start`, Telegram's first message), `/stop`, `/cancel`,
 *   `/confirm`, and the exact words 「确认」「取消」「停止」 (trimmed, trailing punctuation such
 *   as 。！!. allowed), plus English `confirm` / `cancel` (case-insensitive; the English
 *   confirmation prompt names them). The exact word 「网页登录」 is `/web` (the sign-in link skill).
 * - A fullwidth slash `／` (Chinese input methods) is read as `/`.
 */

/** The parsed message. `tool` is the name as typed (without `@bot`), resolved later. */
export type ParsedCommand =
  | { kind: 'call'; tool: string; args: Record<string, unknown> }
  | { kind: 'help'; topic?: string }
  | { kind: 'stop' }
  | { kind: 'cancel' }
  | { kind: 'confirm' }
  | { kind: 'none' }
  /** `message` zh-CN, `message_en` English. */
  | { kind: 'invalid'; message: string; message_en?: string };

const TRAILING_PUNCT = /[\s。．.！!~～，,]+$/u;
const WORDS: Record<string, 'confirm' | 'cancel' | 'stop'> = {
  确认: 'confirm',
  取消: 'cancel',
  停止: 'stop',
  confirm: 'confirm',
  cancel: 'cancel',
};
/** Exact words that call a built-in skill without arguments (「网页登录」 = `/web`, skills/web/). */
const CALL_WORDS: Record<string, string> = {
  网页登录: 'web',
};
const RESERVED: Record<string, 'help' | 'stop' | 'cancel' | 'confirm'> = {
  help: 'help',
  start: 'help',
  stop: 'stop',
  cancel: 'cancel',
  confirm: 'confirm',
};

function invalid(zh: string, en: string): ParsedCommand {
  return { kind: 'invalid', message: zh, message_en: en };
}

/**
 * Parse one message (the text addressed to the bot, mention removed).
 * Never throws; a malformed command is `{kind:'invalid'}`.
 */
export function parseCommand(text: string, opts: { botUsername?: string } = {}): ParsedCommand {
  const trimmed = text.trim();
  const word = WORDS[trimmed.replace(TRAILING_PUNCT, '').toLowerCase()];
  if (word) return { kind: word };
  const alias = CALL_WORDS[trimmed.replace(TRAILING_PUNCT, '')];
  if (alias) return { kind: 'call', tool: alias, args: {} };
  const src = trimmed.startsWith('／') ? `/${trimmed.slice(1)}` : trimmed;
  const m = /^\/([^\s@{/]+)(?:@([A-Za-z0-9_]+))?(?=\s|\{|$)/u.exec(src);
  if (!m) return { kind: 'none' };
  const name = m[1]!;
  const bot = m[2];
  if (bot !== undefined && opts.botUsername && bot.toLowerCase() !== opts.botUsername.replace(/^@/, '').toLowerCase()) {
    return { kind: 'none' };
  }
  const rest = src.slice(m[0].length).trim();
  const reserved = RESERVED[name.toLowerCase()];
  if (reserved === 'help') return rest ? { kind: 'help', topic: rest.split(/\s+/)[0]!.replace(/^[/／]/, '') } : { kind: 'help' };
  if (reserved) return { kind: reserved };
  const args = parseArgs(rest);
  if ('error' in args) return invalid(args.error.zh, args.error.en);
  return { kind: 'call', tool: name, args: args.value };
}

type ArgsResult = { value: Record<string, unknown> } | { error: { zh: string; en: string } };

/** Parse the argument part: "" → {}, a JSON object, or key=value pairs. */
export function parseArgs(rest: string): ArgsResult {
  if (rest === '') return { value: {} };
  if (rest.startsWith('{')) {
    try {
      const v: unknown = JSON.parse(rest);
      if (v && typeof v === 'object' && !Array.isArray(v)) return { value: v as Record<string, unknown> };
    } catch {
      /* fall through */
    }
    return { error: { zh: '参数不是有效的 JSON 对象。', en: 'The arguments are not a valid JSON object.' } };
  }
  const entries: [string, unknown][] = [];
  let i = 0;
  while (i < rest.length) {
    while (i < rest.length && /\s/u.test(rest[i]!)) i++;
    if (i >= rest.length) break;
    const eq = rest.indexOf('=', i);
    const ws = rest.slice(i).search(/\s/u);
    const tokenEnd = ws < 0 ? rest.length : i + ws;
    if (eq < 0 || eq > tokenEnd || eq === i) {
      const token = rest.slice(i, tokenEnd);
      return { error: { zh: `参数应写成 key=value：「${token}」`, en: `Arguments must be key=value pairs: "${token}"` } };
    }
    const key = rest.slice(i, eq);
    i = eq + 1;
    const read = readValue(rest, i);
    if ('error' in read) return read;
    i = read.end;
    if (entries.some(([k]) => k === key)) {
      return { error: { zh: `参数「${key}」重复了，请只写一次。`, en: `Parameter "${key}" is given twice; give it once.` } };
    }
    entries.push([key, read.value]);
  }
  return { value: Object.fromEntries(entries) };
}

const QUOTES: Record<string, string> = { '"': '"', "'": "'", '“': '”' };

function readValue(s: string, start: number): { value: unknown; end: number } | { error: { zh: string; en: string } } {
  const open = s[start];
  if (open !== undefined && open in QUOTES) {
    const close = QUOTES[open]!;
    let out = '';
    for (let j = start + 1; j < s.length; j++) {
      const c = s[j]!;
      if (c === '\\' && (s[j + 1] === close || s[j + 1] === '\\' || s[j + 1] === open)) {
        out += s[j + 1];
        j++;
      } else if (c === close) {
        return { value: out, end: j + 1 };
      } else out += c;
    }
    return { error: { zh: '引号没有闭合。', en: 'A quoted value is not closed.' } };
  }
  if (open === '{' || open === '[') {
    const end = balancedEnd(s, start);
    if (end > 0) {
      try {
        return { value: JSON.parse(s.slice(start, end)), end };
      } catch {
        /* not JSON: read as a plain token */
      }
    }
  }
  const ws = s.slice(start).search(/\s/u);
  const end = ws < 0 ? s.length : start + ws;
  return { value: scalar(s.slice(start, end)), end };
}

/** End index (exclusive) of a bracketed JSON value starting at `start`, or -1. */
function balancedEnd(s: string, start: number): number {
  let depth = 0;
  let inStr = false;
  for (let j = start; j < s.length; j++) {
    const c = s[j]!;
    if (inStr) {
      if (c === '\\') j++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

function scalar(raw: string): unknown {
  if (raw === '') return '';
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'number' && (!Number.isFinite(v) || (/^-?\d+$/.test(raw) && !Number.isSafeInteger(v)))) return raw;
    return v;
  } catch {
    return raw;
  }
}

/**
 * WeCom wire formats: the callback XML (developer.work.weixin.qq.com/document/path/90239 接收普通
 * 消息, /90240 接收事件, /90968 加解密) and the API's error codes (/90313 全局错误码, page path
 * unverified). No XML library is installed, so {@link parseWecomXml} reads the one fixed shape
 * WeCom sends — `<xml>` with child elements whose content is CDATA, text, or nested elements —
 * and refuses anything else (no DOCTYPE, no entity definitions, no processing beyond the five
 * predefined entities and character references).
 */

/** The base of the Open API (`WECOM_API_ROOT` overrides it for tests). */
export const WECOM_DEFAULT_API_ROOT = 'https://qyapi.weixin.qq.com';

/** `text.content` limit, UTF-8 bytes (message/send, /document/path/90236). */
export const TEXT_LIMIT_BYTES = 2048;

/** template_card button `key` limit, bytes (/document/path/90236 按钮交互型). */
export const BUTTON_KEY_LIMIT = 1024;

/** Largest callback body we look at, bytes (real ones are a few KB). */
export const CALLBACK_BODY_LIMIT = 256 * 1024;

/** Error codes the adapter acts on. */
export const ERR = {
  /** 系统繁忙 — retry later. */
  busy: -1,
  /** invalid credential (the access token). */
  invalidCredential: 40001,
  invalidToken: 40014,
  tokenExpired: 42001,
  /** api freq out of limit. */
  freqLimit: 45009,
  /** api concurrent out of limit. */
  concurrencyLimit: 45033,
} as const;

/** True when the error means our cached access token is no longer valid (refresh, retry once). */
export function isTokenError(code: number): boolean {
  return code === ERR.invalidCredential || code === ERR.invalidToken || code === ERR.tokenExpired;
}

/** True when the error is temporary (busy, rate limits). */
export function isRetryableCode(code: number): boolean {
  return code === ERR.busy || code === ERR.freqLimit || code === ERR.concurrencyLimit;
}

/** A parsed callback XML: element name → text (nested content kept as its raw XML string). */
export type WecomXml = Record<string, string>;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*/;

function decodeEntities(s: string): string | null {
  let bad = false;
  const out = s.replace(/&(#x[0-9A-Fa-f]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);|&/g, (m, e: string | undefined) => {
    if (e === undefined) {
      bad = true;
      return m;
    }
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'amp') return '&';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    const cp = e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      bad = true;
      return m;
    }
    return String.fromCodePoint(cp);
  });
  return bad ? null : out;
}

/**
 * The content of the element that starts at `from` (just after its start tag) up to its end tag:
 * `{ text, raw, end }` where `end` is the index after `</name>`. CDATA sections are taken
 * verbatim; character data is entity-decoded; nested elements make `text` the raw inner XML.
 */
function readContent(xml: string, from: number, name: string): { text: string; end: number } | null {
  let i = from;
  let text = '';
  let nested = false;
  let depth = 0;
  while (i < xml.length) {
    if (xml.startsWith('<![CDATA[', i)) {
      const close = xml.indexOf(']]>', i + 9);
      if (close < 0) return null;
      text += xml.slice(i + 9, close);
      i = close + 3;
      continue;
    }
    if (xml.startsWith('</', i)) {
      const m = NAME.exec(xml.slice(i + 2, i + 2 + 256));
      if (!m) return null;
      const gt = i + 2 + m[0].length;
      if (!/^\s*>/.test(xml.slice(gt, gt + 64))) return null;
      const after = xml.indexOf('>', gt) + 1;
      if (depth === 0) {
        if (m[0] !== name) return null;
        return { text: nested ? xml.slice(from, i) : text, end: after };
      }
      depth--;
      i = after;
      continue;
    }
    if (xml[i] === '<') {
      if (xml.startsWith('<!', i) || xml.startsWith('<?', i)) return null;
      const m = NAME.exec(xml.slice(i + 1, i + 1 + 256));
      if (!m) return null;
      const gt = xml.indexOf('>', i);
      if (gt < 0) return null;
      nested = true;
      if (xml[gt - 1] !== '/') depth++;
      i = gt + 1;
      continue;
    }
    const next = xml.indexOf('<', i);
    const chunk = xml.slice(i, next < 0 ? xml.length : next);
    const decoded = decodeEntities(chunk);
    if (decoded === null) return null;
    text += decoded;
    i = next < 0 ? xml.length : next;
  }
  return null;
}

/**
 * Parse a WeCom callback XML document: `<xml>` whose children are elements. Returns each child's
 * text (CDATA verbatim, character data entity-decoded, surrounding whitespace of non-CDATA text
 * trimmed; nested children as raw XML), or null when the document is not of that shape. The
 * first occurrence of a repeated child wins. Never throws.
 */
export function parseWecomXml(input: string): WecomXml | null {
  try {
    let xml = input.replace(/^\uFEFF/, '').trim();
    if (xml.startsWith('<?xml')) {
      const end = xml.indexOf('?>');
      if (end < 0) return null;
      xml = xml.slice(end + 2).trim();
    }
    if (!xml.startsWith('<xml>')) return null;
    const out: WecomXml = {};
    let i = 5;
    for (;;) {
      while (i < xml.length && /\s/.test(xml[i]!)) i++;
      if (xml.startsWith('</xml>', i)) return xml.slice(i + 6).trim() === '' ? out : null;
      if (xml[i] !== '<') return null;
      const m = NAME.exec(xml.slice(i + 1, i + 1 + 256));
      if (!m) return null;
      const name = m[0];
      let j = i + 1 + name.length;
      while (j < xml.length && /\s/.test(xml[j]!)) j++;
      if (xml.startsWith('/>', j)) {
        if (!(name in out)) out[name] = '';
        i = j + 2;
        continue;
      }
      if (xml[j] !== '>') return null;
      const c = readContent(xml, j + 1, name);
      if (!c) return null;
      const raw = xml.slice(j + 1, c.end);
      const text = raw.includes('<![CDATA[') ? c.text : c.text.trim();
      if (!(name in out)) out[name] = text;
      i = c.end;
    }
  } catch {
    return null;
  }
}

/** The `Encrypt` element of an envelope, or null (the one thing read before verification). */
export function envelopeEncrypt(body: string): string | null {
  const x = parseWecomXml(body);
  const e = x?.Encrypt;
  return typeof e === 'string' && e !== '' ? e : null;
}

/** CDATA-wrap a value for XML we write (fakes, passive replies): `]]>` split across sections. */
export function cdata(v: string): string {
  return `<![CDATA[${v.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** A callback XML document from flat fields (tests and fakes): strings as CDATA, numbers/bigints bare. */
export function toWecomXml(fields: Record<string, string | number | bigint>): string {
  const body = Object.entries(fields)
    .map(([k, v]) => (typeof v === 'string' ? `<${k}>${cdata(v)}</${k}>` : `<${k}>${v.toString()}</${k}>`))
    .join('');
  return `<xml>${body}</xml>`;
}

/** A JSON answer of the API: `errcode` 0 = ok. */
export interface ApiAnswer {
  errcode?: number;
  errmsg?: string;
  [k: string]: unknown;
}

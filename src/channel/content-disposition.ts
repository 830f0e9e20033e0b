/**
 * File names of downloads: the `Content-Disposition` header as platforms send it — RFC 6266 /
 * RFC 5987 `filename*=UTF-8''…`, or raw UTF-8 bytes inside `filename="…"` (which Node hands over
 * as latin1). Shared by every adapter that downloads attachments.
 */

/** Re-read a latin1-decoded header value as UTF-8 when its bytes are valid UTF-8. */
export function latin1ToUtf8(s: string): string {
  if (!/[\u0080-\u00ff]/.test(s) || /[^\u0000-\u00ff]/.test(s)) return s;
  const bytes = Buffer.from(s, 'latin1');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : s;
}

/** The file name of a `Content-Disposition` header value, or null. Never throws. */
export function dispositionFilename(header: string | undefined | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*([^;]+)/i.exec(header);
  if (star) {
    const m = /^\s*"?([A-Za-z0-9_-]+)'[^']*'([^";]*)"?\s*$/.exec(star[1]!);
    if (m) {
      try {
        const raw = m[2]!;
        const charset = m[1]!.toLowerCase();
        if (charset === 'utf-8' || charset === 'utf8') return decodeURIComponent(raw);
        // Other charsets: percent bytes as latin1.
        return Buffer.from(
          raw.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('latin1');
      } catch {
        /* fall through to filename= */
      }
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(header);
  if (!plain) return null;
  const value = plain[1] !== undefined ? plain[1].replace(/\\(.)/g, '$1') : (plain[2] ?? '').trim();
  if (value === '') return null;
  return latin1ToUtf8(value);
}

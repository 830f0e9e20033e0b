/**
 * Secret values that must never leave the process (docs/operations-delivery.md "Secrets never
 * leave"): channel tokens and app secrets, skill secrets, the model key, the admin token.
 * Redaction is by value — every occurrence, also percent-encoded (inside a URL) or JSON-escaped
 * — plus a short list of known secret field names. There is no broad name pattern: a key like
 * `chat_key` or `author` is an ordinary field.
 *
 * The process keeps one {@link SecretValues} ({@link processSecrets}); settings, channel
 * accounts and the skill-config store add to it as they read a secret, and the logger, the
 * outbox, the audit log and the inbox scrub through it.
 */

/** The replacement text of a redacted value. */
export const REDACTED = '[redacted]';

/** Values shorter than this are only redacted when a whole string equals them. */
export const MIN_SECRET_LENGTH = 6;

/**
 * Field names whose value is a secret wherever they appear (compared lower-cased, exactly):
 * the channel settings' secret keys, their env names, and the usual credential headers.
 */
export const KNOWN_SECRET_FIELDS: ReadonlySet<string> = new Set([
  'token',
  'bot_token',
  'access_token',
  'refresh_token',
  'api_token',
  'app_token',
  'webhook_secret',
  'secret',
  'app_secret',
  'client_secret',
  'encrypt_key',
  'verification_token',
  'aes_key',
  'signing_secret',
  'channel_secret',
  'channel_access_token',
  'app_password',
  'password',
  'passwd',
  'api_key',
  'apikey',
  'secret_key',
  'private_key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'confirm_token',
  'admin_token',
  'llm_api_key',
  'skillgate_admin_token',
  'skillgate_secret_key',
  'telegram_bot_token',
  'telegram_webhook_secret',
  'feishu_app_secret',
  'feishu_encrypt_key',
  'feishu_verification_token',
  'discord_bot_token',
  'wecom_secret',
  'wecom_token',
  'wecom_aes_key',
  'dingtalk_app_secret',
  'slack_bot_token',
  'slack_signing_secret',
  'slack_app_token',
  'teams_app_password',
  'matrix_access_token',
  'line_channel_secret',
  'line_channel_access_token',
  'qq_app_secret',
  'whatsapp_access_token',
  'whatsapp_app_secret',
  'whatsapp_verify_token',
]);

/** True when `name` is one of {@link KNOWN_SECRET_FIELDS} (case-insensitive, whole name). */
export function isKnownSecretField(name: string): boolean {
  return KNOWN_SECRET_FIELDS.has(name.toLowerCase());
}

/** A growing set of secret values with a scrubber over them. */
export class SecretValues {
  private readonly long = new Set<string>();
  private readonly short = new Set<string>();
  /** Every form of every long value, longest first (rebuilt lazily after an add). */
  private forms: string[] | null = [];

  /** Remember secret values (blank ones are ignored). */
  add(...values: Array<string | undefined | null>): void {
    for (const raw of values) {
      if (typeof raw !== 'string') continue;
      const v = raw.trim();
      if (v === '') continue;
      if (v.length < MIN_SECRET_LENGTH) {
        this.short.add(v);
        this.jsonForms = null;
      } else if (!this.long.has(v)) {
        this.long.add(v);
        this.forms = null;
        this.jsonForms = null;
      }
    }
  }

  /** How many values are known. */
  get size(): number {
    return this.long.size + this.short.size;
  }

  /**
   * False when no string inside the value whose JSON text is `json` can hold a known secret (so
   * {@link scrubValues} would change nothing): every form of every value, JSON-escaped as it
   * appears in such a text, is absent. True is a "maybe": scrub then.
   */
  mayHold(json: string): boolean {
    if (this.size === 0) return false;
    if (!this.jsonForms) {
      const forms = [...this.allForms(), ...this.short];
      this.jsonForms = [...new Set(forms.map((f) => JSON.stringify(f).slice(1, -1)))];
    }
    for (const f of this.jsonForms) if (json.includes(f)) return true;
    return false;
  }

  /** {@link allForms} and the short values as a JSON text shows them (rebuilt with them). */
  private jsonForms: string[] | null = null;

  private allForms(): string[] {
    if (this.forms) return this.forms;
    this.jsonForms = null;
    const out = new Set<string>();
    for (const v of this.long) {
      out.add(v);
      out.add(encodeURIComponent(v));
      out.add(encodeURI(v));
      out.add(JSON.stringify(v).slice(1, -1));
    }
    this.forms = [...out].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
    return this.forms;
  }

  /** `text` with every known secret value (and its URL-encoded / JSON-escaped form) replaced by {@link REDACTED}. */
  scrub(text: string): string {
    if (this.short.has(text.trim())) return REDACTED;
    let out = text;
    for (const f of this.allForms()) if (out.includes(f)) out = out.split(f).join(REDACTED);
    return out;
  }

  /** True when `text` holds a known secret value. */
  reveals(text: string): boolean {
    return this.scrub(text) !== text;
  }

  /**
   * A copy of `value` with every string scrubbed and (with `byName`) every known secret field's
   * value replaced (depth-limited to 8; other values kept).
   */
  scrubDeep<T>(value: T, depth = 0, byName = true): T {
    if (typeof value === 'string') return this.scrub(value) as T;
    if (depth > 8 || value === null || typeof value !== 'object') return value;
    if (value instanceof Date || Buffer.isBuffer(value)) return value;
    if (value instanceof Error) {
      const e = new Error(this.scrub(value.message));
      e.name = value.name;
      if (value.stack) e.stack = this.scrub(value.stack);
      return e as T;
    }
    if (Array.isArray(value)) return value.map((v) => this.scrubDeep(v, depth + 1, byName)) as T;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        byName && isKnownSecretField(k) && v !== null && v !== undefined && v !== '' ? REDACTED : this.scrubDeep(v, depth + 1, byName);
    }
    return out as T;
  }

  /** Like {@link scrubDeep} but by value only (field names kept as they are: an outbound message's shape is the platform's). */
  scrubValues<T>(value: T): T {
    return this.size === 0 ? value : this.scrubDeep(value, 0, false);
  }
}

const shared = new SecretValues();

/** The process-wide secret values. */
export function processSecrets(): SecretValues {
  return shared;
}

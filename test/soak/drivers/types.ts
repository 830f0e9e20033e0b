/**
 * What the soak's scenarios need from a channel driver (test/soak/drivers/*): send a text or an
 * upload as a person in one chat, press a button, and hear every message the gateway delivered
 * to the platform fake (or the web socket), parsed into text and buttons.
 */

/** A button of a delivered message. */
export interface Button {
  label: string;
  /** What a press sends back (Telegram callback_data, web `<confirm_token>` + option id). */
  data: string;
}

/** A message the gateway delivered to a chat. */
export interface Delivered {
  chat: string;
  text: string;
  buttons: Button[];
  at: number;
}

/** The outcome of sending one inbound: acknowledged (platform got 200 / web got `user.ack`) or not. */
export type Ack = { acked: true; at: number } | { acked: false; reason: string };

/** A file to upload. */
export interface UploadFile {
  name: string;
  data: Buffer;
  mime: string;
}

/** One channel's traffic driver. Chats are named `<channel>:<id>`. */
export interface ChannelDriver {
  readonly channel: 'telegram' | 'feishu' | 'discord' | 'web';
  readonly chats: readonly string[];
  /** Whether confirmations are answered by a button press (else by the text 「确认」). */
  readonly buttons: boolean;
  /** Whether {@link sendUpload} is available. */
  readonly uploads: boolean;
  sendText(chat: string, text: string): Promise<Ack>;
  sendUpload(chat: string, text: string, file: UploadFile): Promise<Ack>;
  press(chat: string, button: Button): Promise<Ack>;
  /** The gateway is about to be killed (drivers without redelivery stop sending). */
  beforeCrash(): void;
  /** The gateway listens again. */
  afterRestart(): Promise<void>;
  close(): Promise<void>;
}

/** Called by a driver for every delivered message. */
export type OnDelivered = (d: Delivered) => void;

/** POST until the answer is 200 (what a platform's redelivery does), for at most `ms`. */
export async function postUntilOk(url: string, init: () => RequestInit, ms = 180_000): Promise<Ack> {
  const end = Date.now() + ms;
  let last = '';
  let delay = 250;
  for (;;) {
    try {
      const res = await fetch(url, { ...init(), signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 200) return { acked: true, at: Date.now() };
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > end) return { acked: false, reason: `not accepted within ${ms / 1000} s (${last})` };
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 2000);
  }
}

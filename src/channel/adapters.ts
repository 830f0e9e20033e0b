/**
 * The one place adapters are registered: which adapter instances exist for the channels that are
 * on, and the lookup the outbox and the turn use. Later channels add one entry each here.
 */
import type { ChannelAdapter } from './types.ts';

/** The adapters of a running gateway, by channel and account. */
export class AdapterSet {
  readonly #byKey = new Map<string, ChannelAdapter>();

  /** Add an adapter. @throws Error when its channel + account is already taken. */
  add(adapter: ChannelAdapter): void {
    const key = `${adapter.channel}:${adapter.account}`;
    if (this.#byKey.has(key)) throw new Error(`two adapters for ${key}`);
    this.#byKey.set(key, adapter);
  }

  /** The adapter of `channel`/`account`, or undefined when that account is off. */
  get(channel: string, account: string): ChannelAdapter | undefined {
    return this.#byKey.get(`${channel}:${account}`);
  }

  /** Every adapter, in the order added. */
  all(): ChannelAdapter[] {
    return [...this.#byKey.values()];
  }

  /** `["web", "telegram@default", …]` for the start-up line. */
  describe(): string[] {
    return this.all().map((a) => (a.account === 'default' ? a.channel : `${a.channel}@${a.account}`));
  }
}

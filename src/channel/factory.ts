/**
 * How a channel module plugs into the gateway: a factory that turns the channel's configured
 * accounts ({@link accountsFor}) into adapters. A channel with no configured account returns
 * `[]` (it is off). The factories are listed once, in `adapters/index.ts`.
 */
import type { ConfigFile } from '../config/file.ts';
import type { Logger } from '../log/logger.ts';
import type { Db } from './db.ts';
import type { ChannelAdapter } from './types.ts';

/** What a channel factory may use. */
export interface ChannelFactoryContext {
  db: Db;
  log: Logger;
  /** The process environment (the channel's `.env` block). */
  env: NodeJS.ProcessEnv;
  config: ConfigFile;
  /** The default role id (`SKILLGATE_ROLE_ID`), the role of the `.env` account. */
  defaultRoleId: string;
  dataDir: string;
  /** 32-byte key for anything an adapter stores encrypted. */
  secretKey: Buffer;
  /** `SKILLGATE_PUBLIC_URL`, used to register webhooks, when set. */
  publicUrl?: string;
  /** Wall clock (tests inject one for replay windows and expiries). */
  now?: () => Date;
}

/** One channel's factory. */
export interface ChannelFactory {
  channel: string;
  /**
   * Build the adapters of every configured account (none → `[]`).
   * @throws ConfigError when an account is configured inconsistently (named key in the message).
   */
  create(ctx: ChannelFactoryContext): Promise<ChannelAdapter[]>;
}

/**
 * What a channel says about itself, once, in `adapters/<channel>/channel.ts`; `adapters/index.ts`
 * lists the declarations of this build, and everything that needs to know the channels (the
 * start-up, the `.env` settings, the config-file check, the directory import, the console)
 * is handed that list (docs/adapter-authoring.md "Declaring a channel").
 */
import type { ChannelFactory } from './factory.ts';
import { lazyChannel } from './per-account.ts';

/** One channel of the build. */
export interface ChannelDeclaration {
  /** The channel's name: `accounts[].channel`, its directory column, `<name>:<id>` recipients. */
  name: string;
  /** The `.env` variables that together switch the `.env` account on. */
  env: readonly string[];
  /** The account key that must be set for an account to count (`<NAME>_<KEY>` in `.env`). */
  accountKey: string;
  /** Imports the channel module (and its platform SDK); called only when an account is configured. */
  load(): Promise<ChannelFactory>;
}

/** The factory of a declared channel: off without an account, its module imported only when on. */
export function declaredFactory(d: ChannelDeclaration): ChannelFactory {
  return lazyChannel(d.name, d.accountKey, d.load);
}

/** The names of the declared channels, in declaration order. */
export function channelNames(declared: readonly ChannelDeclaration[]): string[] {
  return declared.map((d) => d.name);
}

/** The channels a directory row can carry ids for: every declared channel, then `web`. */
export function directoryChannels(declared: readonly ChannelDeclaration[]): string[] {
  return [...channelNames(declared), 'web'];
}

/** `web`, then every declared channel whose `.env` variables are all set (non-blank). */
export function envChannels(env: NodeJS.ProcessEnv, declared: readonly ChannelDeclaration[]): string[] {
  const set = (k: string) => (env[k] ?? '').trim() !== '';
  return ['web', ...declared.filter((d) => d.env.every(set)).map((d) => d.name)];
}

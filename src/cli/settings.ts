/**
 * Settings for CLI commands: configuration errors become "input refused" (exit 1) with the
 * variable or key named (README.md "The skillgate command").
 */
import { channelDeclarations } from '../../adapters/index.ts';
import { channelNames } from '../channel/declaration.ts';
import { ConfigError } from '../config/errors.ts';
import type { ConfigDefaults } from '../config/file.ts';
import { CliError, EXIT_REFUSED } from './io.ts';

/** Run `load`, turning a ConfigError into a CliError with exit code 1. */
export function configErrorsAsRefusal<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`, EXIT_REFUSED);
    throw err;
  }
}

/** {@link configErrorsAsRefusal} for an async loader. */
export async function configErrorsAsRefusalAsync<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`, EXIT_REFUSED);
    throw err;
  }
}

/** The CLI's config-file defaults: the settings' org and role, and the channels of this build. */
export function configDefaults(settings: { orgId: string; roleId: string }): ConfigDefaults {
  return { orgId: settings.orgId, roleId: settings.roleId, channels: channelNames(channelDeclarations) };
}

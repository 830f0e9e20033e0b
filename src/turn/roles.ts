/**
 * The role (agent) that answers on a channel account (docs/configuration.md): an account names its
 * role in `skillgate.config.yaml`; the web chat and the `.env` accounts use the default role.
 */
import type { AccountConfig, ConfigFile, RoleConfig } from '../config/file.ts';

/**
 * The role bound to `channel`/`account`: the configured account's `role`, else the default
 * role (`defaultRoleId`), else the first role of the file.
 * @throws Error when the config has no role at all (parseConfigFile always adds one).
 */
export function roleFor(config: ConfigFile, channel: string, account: string, defaultRoleId: string): RoleConfig {
  const acc: AccountConfig | undefined = config.accounts.find((a) => a.channel === channel && a.id === account);
  const wanted = acc?.role ?? defaultRoleId;
  const role = config.roles.find((r) => r.id === wanted) ?? config.roles.find((r) => r.id === defaultRoleId) ?? config.roles[0];
  if (!role) throw new Error('no role is configured');
  return role;
}

/**
 * The operators' console's section contract (docs/adapter-authoring.md `/admin`): what a
 * section gets from the gateway ({@link AdminDeps}), what it provides ({@link AdminSection}),
 * and the small helpers every section's routes share (error shape, the signed-in admin, roles).
 *
 * A section's routes are mounted at `/admin/api/<id>/`, behind the admin sign-in and the CSRF
 * check (src/console/auth.ts), with JSON bodies already parsed (`express.json`, 1 MiB).
 * Errors are `{error: <zh-CN text>, code: <stable code>}` with a 4xx status (docs/console.md).
 */
import type express from 'express';
import type { Scheduler } from '../schedule/scheduler.ts';
import type { ChannelAdapter } from '../channel/types.ts';
import type { ConfigFile, RoleConfig } from '../config/file.ts';
import type { SkillCall, SkillServices } from '../executor/skill-call.ts';
import type { SkillLifecycle } from '../lifecycle/types.ts';
import type { Logger } from '../log/logger.ts';
import type { Outbox } from '../outbox/types.ts';
import type { Db, Queryable } from '../store/db.ts';

/** What every console section may use: the running gateway's services. */
export interface AdminDeps {
  db: Db;
  log: Logger;
  /**
   * Skill services: `registry`, `secretKey`, `settings`, `lifecycle` (the live skill set; absent
   * in tests without it) and `call`, the gateway's composed (audited) skill call.
   */
  services: SkillServices & { readonly lifecycle?: SkillLifecycle; readonly call: SkillCall };
  /** Roles and accounts (`skillgate.config.yaml` after defaults). */
  config: ConfigFile;
  /** The default role's id (`SKILLGATE_ROLE_ID`). */
  defaultRoleId: string;
  /** The directory's channel columns (`directoryChannels(channelDeclarations)`). */
  channels: readonly string[];
  /** The durable outbound queue (retry wakes its delivery loop). */
  outbox: Outbox;
  /** The adapter of a channel account (undefined = off). */
  adapterFor: (channel: string, account: string) => ChannelAdapter | undefined;
  /** The gateway's running scheduler (schedules section); absent → a short writer-mode scheduler per write. */
  scheduler?: Scheduler;
  /** `findContact` of `src/identity/` (web sessions section); absent → `src/identity/`'s own. */
  findContact?: (q: Queryable, orgId: string, contactKey: string) => Promise<unknown>;
}

/** Who is signed in to the console. */
export type AdminIdentity =
  | { kind: 'token' }
  /** A directory contact with `is_admin`, signed in with a `skillgate web token` token. */
  | { kind: 'contact'; orgId: string; contactKey: string; name: string };

/** One section of the console (server side). The client module is `public/sections/<id>.js`. */
export interface AdminSection {
  /** URL segment and client module name: `[a-z][a-z0-9_-]*`. */
  id: string;
  /** Navigation label. */
  title: { zh: string; en: string };
  /** Routes mounted at `/admin/api/<id>/` behind the admin auth middleware. */
  routes(deps: AdminDeps): express.Router;
}

/** Send a console error: `{error, code}` with `status` (4xx). `error` is zh-CN text for the operator. */
export function fail(res: express.Response, status: number, code: string, error: string): void {
  res.status(status).json({ error, code });
}

/** The admin of this request (set by the auth middleware; only routes behind it may call this). */
export function adminOf(res: express.Response): AdminIdentity {
  const a = res.locals.admin as AdminIdentity | undefined;
  if (!a) throw new Error('adminOf called outside the admin auth middleware');
  return a;
}

/** The config role `roleId`, or undefined. */
export function roleOf(deps: AdminDeps, roleId: string): RoleConfig | undefined {
  return deps.config.roles.find((r) => r.id === roleId);
}

/** The default role (the one the web chat and `.env` accounts use). */
export function defaultRole(deps: AdminDeps): RoleConfig {
  return roleOf(deps, deps.defaultRoleId) ?? deps.config.roles[0]!;
}

/** A query-string or body value as a trimmed non-empty string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

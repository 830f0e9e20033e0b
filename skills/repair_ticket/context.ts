/**
 * What `repair_ticket` reads from its runtime_context: the sender's own address (from the
 * inbound request, docs/messaging.md `<channel>[@<account>]:<id>`), the photo a message
 * carried, the skill parameters, and files kept per ticket in the session workspace.
 */
import { contextTimeZone } from '../../src/present/clock.ts';
import { copyFileSync, existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { addressOf } from './lib.ts';

/** The fields of `runtime_context` this skill uses. */
export interface Ctx extends Record<string, unknown> {
  call_skill?: (name: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>;
  await_reply?: (req: Record<string, unknown>) => Promise<Record<string, unknown>>;
  request?: unknown;
  attachments?: { type?: string; filename?: string; local_path?: string }[];
  workspace_dir?: string;
  session_id?: string;
  org_id?: string;
  channel?: string;
  team_role?: string;
  actor_name?: string;
  actor_emp_no?: string;
  skill_configs?: Record<string, unknown>;
}

/** Where the current message came from (the inbound request on the chat line). */
export interface Origin {
  /** `feishu`, or `feishu@<account>` for a non-default bot account: the address prefix. */
  channel: string;
  /** The sender's platform id (Feishu open_id, Telegram user id, web contact key). */
  openid: string;
  /** The full address `<channel>[@<account>]:<id>`, "" when unknown (CLI, schedule). */
  address: string;
}

interface RequestLike {
  channel?: string;
  account?: string;
  actor?: { id?: string };
  attachments?: unknown[];
}

/** The sender's origin, from `runtime_context.request` (null off the chat line → empty). */
export function originOf(ctx: Ctx): Origin {
  const req = (ctx.request ?? null) as RequestLike | null;
  const channel = req?.channel ?? '';
  const id = req?.actor?.id ?? '';
  if (!channel || !id) return { channel: '', openid: '', address: '' };
  const address = addressOf(channel, req?.account, id);
  return { channel: address.slice(0, address.length - id.length - 1), openid: id, address };
}

/** The image this very message carried (the newest image of the session), or "". */
export function messagePhoto(ctx: Ctx): string {
  const req = (ctx.request ?? null) as RequestLike | null;
  if (!req || !Array.isArray(req.attachments) || req.attachments.length === 0) return '';
  return imageOf(ctx.attachments ?? []);
}

/** The last image item of an attachments list that has a local file, or "". */
export function imageOf(items: readonly { type?: string; local_path?: string }[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const a = items[i]!;
    if (a.type === 'image' && a.local_path && existsSync(a.local_path)) return a.local_path;
  }
  return '';
}

/**
 * The zone tickets' times are shown in: the skill's `timezone`, else the caller's role's, else
 * the organisation's (docs/results.md "Times").
 */
export function timeZoneOf(ctx: Ctx): string {
  return param(ctx, 'timezone', contextTimeZone(ctx));
}

/** A skill parameter (`skillgate config set repair_ticket <key> <value>`), or `fallback`. */

export function param(ctx: Ctx, key: string, fallback: string): string {
  const v = ctx.skill_configs?.[key] ?? ctx[key];
  return typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : fallback;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * The folder every photo must lie in: the gateway's workspaces root
 * (`<data>/workspaces`, the grandparent of a session workspace `<role>/<session>`), else the
 * session workspace itself (a `skill run --workspace DIR` elsewhere). Never the data dir as a
 * whole: it holds the secret key.
 */
export function filesRoot(ctx: Ctx): string {
  const ws = ctx.workspace_dir ?? '';
  if (!ws || !existsSync(ws)) return '';
  const root = resolve(ws, '..', '..');
  return realpathSync(basename(root) === 'workspaces' ? root : ws);
}

/**
 * A stored or given photo path → its real absolute path, only when the file exists inside
 * {@link filesRoot} (a ticket cell edited to `/etc/passwd`, or `image=../../secret.key`, is
 * refused: it would otherwise be copied and sent). Relative values are taken from the root.
 * @returns the path, or "" when refused or missing
 */
export function confinedFile(ctx: Ctx, p: string): string {
  const root = filesRoot(ctx);
  if (!root || !p) return '';
  const abs = isAbsolute(p) ? p : resolve(root, p);
  if (!existsSync(abs)) return '';
  const real = realpathSync(abs);
  return inside(root, real) && statSync(real).isFile() ? real : '';
}

/** How a kept file is written into a ticket cell: relative to {@link filesRoot} (no server paths shown). */
export function storedPath(ctx: Ctx, abs: string): string {
  const root = filesRoot(ctx);
  return abs && root ? relative(root, abs) : '';
}

/**
 * A copy of `src` kept with the ticket in this session's workspace
 * (`repair_ticket/T-<n>/<name><ext>`), so the file outlives the upload and can be attached
 * by send_message / notify (which take files of the caller's workspace only). `src` must
 * pass {@link confinedFile}.
 * @returns the absolute path of the copy, or "" when there is no (acceptable) file
 */
export function keepFile(ctx: Ctx, src: string, ref: string, name: string): string {
  const ws = ctx.workspace_dir ?? '';
  const real = confinedFile(ctx, src);
  if (!real || !ws) return '';
  const own = join(realpathSync(ws), 'repair_ticket', ref);
  if (inside(own, real)) return real;
  const dest = join(own, `${name}${extname(real).toLowerCase() || '.jpg'}`);
  mkdirSync(own, { recursive: true });
  copyFileSync(real, dest);
  return dest;
}

/** A stored file usable as an attachment from this session ("" when it is gone or refused). */
export function attachable(ctx: Ctx, path: unknown, ref: string, name: string): string {
  return typeof path === 'string' && path ? keepFile(ctx, path, ref, name) : '';
}

/** May this caller manage tickets of others (team owner/admin)? */
export function isManager(ctx: Ctx): boolean {
  return ctx.team_role === 'owner' || ctx.team_role === 'admin';
}

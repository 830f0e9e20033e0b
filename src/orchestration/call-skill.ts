/**
 * `runtime_context.call_skill(name, input, options)` (R-CALL-01..14, A-19..A-21).
 *
 * - Input (R-CALL-01..04): explicit input and extra option fields > `template` (`{field}`
 *   filled from `source`) > `passthrough` (the whole `source`) > the callee's own stored
 *   parameters of the same name.
 * - Context (R-CALL-05..08): the whitelist of callSkillChildContext, the callee's own
 *   configuration re-read from the store, `allow_sql=false` inherited.
 * - Depth: the top-level skill is level 1; levels 2 and 3 may be reached, a 4th is
 *   refused; a skill may not call itself directly (R-CALL-12), indirect recursion is allowed
 *   within the depth limit.
 * - Each call gets a fresh database session (R-CALL-09): `db_factory` opens a new
 *   transaction per use; the legacy `db` runs each statement on its own.
 * - No dialog-layer post-processing (R-ART-12, R-CALL-14): no URL materialisation, no
 *   attachment registration, no offloading.
 * - Never throws (R-CALL-10): the callee's own output object is returned as it is
 *   (normalised: a non-object is wrapped as `{result}`); a platform-level failure (unknown
 *   skill, depth, self-call, requires, validation, timeout, exception) is
 *   `{ok:false, error, skill}`.
 * - The callee's wall is its own, capped by what is left of the caller's (R-ASYNC-09,
 *   R-WALL-06). An `async: true` callee runs synchronously here (background dispatch is a
 *   dialog-layer feature) and a warning is logged (R-CALL-16; the registry lints it too).
 * - Commit before calling (R-CALL-15): the callee's session never sees the caller's
 *   uncommitted writes. A call made while the caller holds an open `db_factory` transaction is
 *   logged as a warning; on the embedded engine (one session) it is refused at once with a
 *   failure object, since the callee could never get a session and both would wait forever.
 */
import { normalizeEnvelope } from '../envelope/normalize.ts';
import { jsonSafeOutcome } from '../envelope/json-safe.ts';
import { callSkillChildContext } from '../runtime/context.ts';
import type { CallSkill, CallSkillOptions, RuntimeContext } from '../runtime/types.ts';
import { normalizeFileParams } from '../executor/file-params.ts';
import { executePrepared, prepareCall, wallFor, type ContextPart, type SkillServices } from '../executor/skill-call.ts';
import { attachmentRefs, listAttachments } from '../session/attachments.ts';
import { attachmentStoreDir } from '../session/workspace.ts';
import { trackedDbFactory } from '../executor/db-factory.ts';

/** Deepest level a call chain may reach; the top-level skill is level 1. */
export const MAX_CALL_DEPTH = 3;

/** Where a call_skill function sits in the call chain. */
export interface CallSite {
  /** The calling skill's registered name. */
  caller: string;
  /** The caller's level (top-level skill = 1). */
  depth: number;
  /** Epoch ms by which the whole top-level call must end (the caller's wall). */
  deadline: number;
  /** The caller's context (read lazily: built after the function is made). */
  parent: () => RuntimeContext;
  lang: 'zh-CN' | 'en';
  /** Transactions the caller holds open through its `db_factory` (R-CALL-15); absent → 0. */
  openTransactions?: () => number;
}

const RESERVED_OPTIONS = new Set(['source', 'template', 'passthrough']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `{field}` placeholders of a template value filled from `source` (R-CALL-03). */
function fillTemplate(text: string, source: Record<string, unknown>): string {
  return text.replace(/\{([A-Za-z0-9_\u4e00-\u9fa5.]+)\}/g, (whole, key: string) => {
    const v = source[key];
    if (v === undefined || v === null) return whole;
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/**
 * The callee's input from the explicit input, the extra option fields, the template and the
 * passthrough source, in R-CALL-02 priority (the callee's stored parameters are applied later,
 * under all of these).
 */
export function mergeCallInput(input: Record<string, unknown> | undefined, options: CallSkillOptions | undefined): Record<string, unknown> {
  const opts = options ?? {};
  const source = isRecord(opts.source) ? opts.source : {};
  const merged: Record<string, unknown> = {};
  if (opts.passthrough === true) Object.assign(merged, source);
  if (isRecord(opts.template)) {
    for (const [k, v] of Object.entries(opts.template)) merged[k] = typeof v === 'string' ? fillTemplate(v, source) : v;
  }
  for (const [k, v] of Object.entries(opts)) if (!RESERVED_OPTIONS.has(k)) merged[k] = v;
  if (isRecord(input)) Object.assign(merged, input);
  return merged;
}

function failure(skill: string, error: string): Record<string, unknown> {
  return { ok: false, error, skill };
}

/**
 * The context part that gives every top-level call its `call_skill` (composed into the skill
 * call at wiring time, src/wiring/skill-call.ts).
 */
export function callSkillPart(services: SkillServices): ContextPart {
  return (frame) => ({
    call_skill: makeCallSkill(services, {
      caller: frame.skill.name,
      depth: 1,
      deadline: frame.deadline,
      parent: frame.parent,
      lang: frame.lang,
      openTransactions: frame.openTransactions,
    }),
  });
}

/** Make the `call_skill` function of a skill running at `site`. */
export function makeCallSkill(services: SkillServices, site: CallSite): CallSkill {
  return async (name, input, options) => {
    const target = typeof name === 'string' ? name.trim() : '';
    try {
      if (!target) return failure(String(name), 'call_skill needs a skill name');
      const depth = site.depth + 1;
      if (depth > MAX_CALL_DEPTH) {
        return failure(target, `call depth limit reached: at most ${MAX_CALL_DEPTH} levels of skills (A-19)`);
      }
      const resolved = services.registry.resolveTool(target);
      if (resolved && resolved.record.name === site.caller) {
        return failure(target, 'a skill may not call itself (R-CALL-12)');
      }
      const open = site.openTransactions?.() ?? 0;
      if (open > 0) {
        if (services.db.engine === 'embedded') {
          return failure(
            target,
            `"${site.caller}" called call_skill inside an open db_factory transaction: commit your writes before calling another skill ` +
              '(it uses its own database session, which cannot see uncommitted rows and, on the embedded database, would wait for yours forever; R-CALL-15)',
          );
        }
        services.log.warn(
          { skill: target, caller: site.caller, open_transactions: open },
          'call_skill inside an open db_factory transaction: the callee cannot see the uncommitted writes (commit first, R-CALL-15)',
        );
      }
      if (resolved?.record.frontmatter.async) {
        services.log.warn(
          { skill: resolved.record.name, caller: site.caller },
          "call_skill of an async: true skill: it runs synchronously on the caller's wall clock (do not call async skills through call_skill, R-CALL-16)",
        );
      }
      const parent = site.parent();
      const roleId = String(parent.role_id ?? '');
      // The caller's role scope applies to the callee too (role scope).
      if (resolved && roleId && services.skillsFor && !services.skillsFor(roleId).includes(resolved.record.name)) {
        return failure(target, `role "${roleId}" does not enable skill "${resolved.record.name}"`);
      }
      const explicit = mergeCallInput(isRecord(input) ? input : undefined, options);
      const prepared = await prepareCall(services, target, explicit, { roleId, delegated: true, userText: '', lang: site.lang });
      if ('refused' in prepared) {
        const env = prepared.refused;
        return failure(target, String(env.error ?? env.user_message ?? 'refused'));
      }
      // The callee's own parameters fill what no explicit source gave (R-CALL-02, lowest).
      for (const [k, v] of Object.entries(prepared.config)) {
        if (!(k in prepared.input) && !prepared.secretParams.includes(k)) {
          const props = isRecord(prepared.skill.inputSchema.properties) ? prepared.skill.inputSchema.properties : {};
          if (k in props) prepared.input[k] = v;
        }
      }
      const workspaceDir = String(parent.workspace_dir ?? '');
      if (workspaceDir) {
        const records = await listAttachments(services.db, String(parent.session_id ?? ''));
        const files = normalizeFileParams(prepared.input, {
          workspaceDir,
          attachmentStoreDir: attachmentStoreDir(services.settings.dataDir),
          refs: attachmentRefs(records),
          lang: site.lang,
        });
        if ('envelope' in files) return failure(target, String(files.envelope.error ?? 'invalid file parameter'));
        prepared.input = files.input;
      }
      const wallSec = wallFor(services, prepared.skill, 'call_skill', site.deadline);
      if (wallSec <= 0.001) return failure(target, "no time left in the caller's wall clock");
      let child!: RuntimeContext;
      const childTx = trackedDbFactory(services.db);
      const childCall = makeCallSkill(services, {
        caller: prepared.skill.name,
        depth,
        deadline: Math.min(site.deadline, Date.now() + wallSec * 1000),
        parent: () => child,
        lang: site.lang,
        openTransactions: childTx.open,
      });
      child = callSkillChildContext(
        parent,
        { skill: prepared.skill.name, values: prepared.config },
        {
          db: services.db,
          db_factory: childTx.factory,
          call_skill: childCall,
        },
      );
      const abort = parent.abort_signal instanceof AbortSignal ? parent.abort_signal : undefined;
      const outcome = jsonSafeOutcome(
        await executePrepared(services, prepared, child, { wallSec, abortSignal: abort, callSkill: childCall }),
        prepared.skill.name,
        (t) => t,
      );
      if (outcome.kind === 'failed') return failure(prepared.skill.name, outcome.error);
      return normalizeEnvelope(outcome, { skill: prepared.skill.name, lang: site.lang });
    } catch (err) {
      services.log.error({ err, skill: target, caller: site.caller }, 'call_skill failed');
      return failure(target, err instanceof Error ? err.message : String(err));
    }
  };
}

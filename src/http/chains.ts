/**
 * Chain endpoints (docs/chains.md; R-CHAIN-16, R-CHAIN-24..26):
 *
 * - `POST /skills/chain/save` — body: a chain document. 200 `{ok:true, name, enabled}`, or
 *   **422** `{ok:false, error, problems:[{code, item, message}]}` when a rule of §保存校验 refuses it.
 * - `POST /skills/chain/test` — body: `{chain: <document>} | {name}`, `input?`, `emp_no?`
 *   ("run as" that directory contact), `role?`. Runs for real (writes data, sends
 *   notifications) after checking the chain-level required inputs (422 when one is missing);
 *   200 with the runner's return object.
 *
 * The lead mounts the router behind the admin guard (`auth`).
 */
import express, { type RequestHandler, type Router } from 'express';
import type { ConfigFile } from '../config/file.ts';
import { actorFieldsFor, resolveActor } from '../identity/index.ts';
import { callActorOf, NO_ACTOR, type CallActor } from '../executor/request.ts';
import type { TeamRole } from '../runtime/types.ts';
import { directoryOrgId } from '../identity/org.ts';
import { requiredInputs, shapeProblems, type ChainDocument } from '../chain/document.ts';
import { validateAndSave, withChainRegistry } from '../chain/services.ts';
import { runChainDocument, type ChainServices } from '../chain/skill.ts';
import { getChain } from '../chain/store.ts';
import type { ChainProblem } from '../chain/validate.ts';

/** What the chain routes need. */
export interface ChainRoutesDeps {
  services: ChainServices;
  config: ConfigFile;
  defaultRoleId: string;
  /** Admin guard (the console's admin token / sign-in). */
  auth: RequestHandler;
  /** Called after a chain was saved (the gateway rebuilds its registry with the saved chains). */
  onChange?: () => void | Promise<void>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function refuse(res: express.Response, error: string, problems: ChainProblem[]): void {
  res.status(422).json({ ok: false, error, problems });
}

/** The router serving `/skills/chain/save` and `/skills/chain/test`. */
export function createChainRouter(deps: ChainRoutesDeps): Router {
  const router = express.Router();
  const json = express.json({ limit: '1mb' });

  router.post('/skills/chain/save', deps.auth, json, async (req, res) => {
    const outcome = await validateAndSave(deps.services.db, deps.services.registry, req.body);
    if (!outcome.ok) {
      refuse(res, 'chain refused', outcome.problems);
      return;
    }
    await deps.onChange?.();
    res.json({ ok: true, name: outcome.chain.name, enabled: outcome.chain.enabled });
  });

  router.post('/skills/chain/test', deps.auth, json, async (req, res) => {
    const body: Record<string, unknown> = isRecord(req.body) ? req.body : {};
    let doc: ChainDocument | undefined;
    if (isRecord(body.chain)) doc = body.chain as unknown as ChainDocument;
    else if (typeof body.name === 'string') doc = (await getChain(deps.services.db, body.name))?.document;
    if (!doc) {
      refuse(res, 'no chain', [
        { code: 'chain.missing', item: 'chain', message: 'chain: give a chain document as "chain" or a saved chain\'s "name"' },
      ]);
      return;
    }
    const shape = shapeProblems(doc);
    if (shape.length > 0) {
      refuse(
        res,
        'not a chain document',
        shape.map((m) => ({ code: 'document.shape', item: m.split(':')[0]!, message: m })),
      );
      return;
    }
    const input = isRecord(body.input) ? body.input : {};
    const missing = requiredInputs(doc).filter((k) => input[k] === undefined || input[k] === null || input[k] === '');
    if (missing.length > 0) {
      refuse(
        res,
        'missing required input',
        missing.map((k) => ({ code: 'input.required', item: `{${k}}`, message: `{${k}}: required chain input is missing` })),
      );
      return;
    }
    const roleId = typeof body.role === 'string' && body.role ? body.role : deps.defaultRoleId;
    const role = deps.config.roles.find((r) => r.id === roleId);
    if (!role) {
      refuse(res, 'unknown role', [{ code: 'role.unknown', item: 'role', message: `role: "${roleId}" is not configured` }]);
      return;
    }
    let actor: CallActor = NO_ACTOR;
    let teamRole: TeamRole | undefined;
    if (typeof body.emp_no === 'string' && body.emp_no.trim()) {
      const { rows } = await deps.services.db.query<{ contact_key: string }>(
        'SELECT contact_key FROM skillgate.contacts WHERE org_id = $1 AND emp_no = $2 LIMIT 1',
        [directoryOrgId(role.org_id, roleId), body.emp_no.trim()],
      );
      if (!rows[0]) {
        refuse(res, 'unknown emp_no', [
          { code: 'emp_no.unknown', item: 'emp_no', message: `emp_no: no directory contact has employee number "${body.emp_no}"` },
        ]);
        return;
      }
      const resolved = await resolveActor(deps.services.db, {
        orgId: role.org_id,
        roleId,
        channel: 'web',
        platformId: rows[0].contact_key,
        nickname: '',
      });
      actor = callActorOf(actorFieldsFor(resolved, { channel: 'web', actingAsAdmin: false }), resolved.contactKey);
      teamRole = resolved.teamRole;
    }
    const services = await withChainRegistry(deps.services);
    const result = await runChainDocument(services, {
      doc,
      input,
      actor,
      origin: {
        roleId,
        orgId: role.org_id,
        channel: 'web_admin',
        rawInput: '',
        chatMode: false,
        allowSql: true,
        isAdmin: false,
        ...(teamRole ? { teamRole } : {}),
      },
      session: { open: { id: `chain-test:${doc.name ?? 'unnamed'}:${Date.now()}` } },
    });
    res.json(result);
  });

  return router;
}

/**
 * The gateway's HTTP surface (docs/adapter-authoring.md). This foundation carries health, readiness
 * and the local admin API; later modules mount webhooks, the web chat and the console.
 */
import express, { type Express } from 'express';
import type { Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import type { Logger } from '../log/logger.ts';
import { requireBearer } from './local-auth.ts';
import type { ConfigFile } from '../config/file.ts';
import { CliRunRefusal, runFromCli, type CliRunOptions } from '../executor/cli-run.ts';
import type { SkillCall, SkillServices } from '../executor/skill-call.ts';
import type { SkillLifecycle } from '../lifecycle/types.ts';
import { listSkillConfig, setSkillConfig } from '../runtime/skill-config.ts';
import type { GrantCommandRequest } from '../admin/grants.ts';

/** What the app needs from the running gateway. */
export interface AppDeps {
  db: Db;
  log: Logger;
  /** Per-start token of the local admin API (`<data>/server.json`). */
  localToken: string;
  /** The directory's channel columns (`directoryChannels(channelDeclarations)`), for the directory import. */
  channels: readonly string[];
  /** Skill execution for the local admin API (`skill run` while serve runs). */
  skills?: {
    services: SkillServices & { readonly call: SkillCall };
    lifecycle?: SkillLifecycle;
    config: ConfigFile;
    defaultRoleId: string;
  };
  /** Prometheus registry served at `GET /metrics` . */
  metrics?: { registry: { contentType: string; metrics(): Promise<string> } };
  /** Channel routes (web chat page, uploads, files, webhooks), mounted before the fallback page. */
  routers?: express.Router[];
}

/** Build the express app. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    try {
      await deps.db.query('SELECT 1');
      res.json({ status: 'ready', database: deps.db.engine });
    } catch (err) {
      deps.log.warn({ err }, 'readiness check failed: database unreachable');
      res.status(503).json({ status: 'unavailable', database: deps.db.engine });
    }
  });

  app.get('/metrics', async (_req, res) => {
    if (!deps.metrics) {
      res.status(404).end();
      return;
    }
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  for (const r of deps.routers ?? []) app.use(r);

  app.get('/', (_req, res) => {
    res
      .type('html')
      .send(
        '<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>skillgate</title></head>' +
          '<body><h1>skillgate</h1><p>网关已启动。网页聊天即将上线。</p></body></html>',
      );
  });

  const local = express.Router();
  local.use(requireBearer(deps.localToken));
  local.post('/db/migrate', async (_req, res) => {
    const result = await migrate(deps.db);
    res.json(result);
  });
  local.post('/skill/run', express.json({ limit: '10mb' }), async (req, res) => {
    if (!deps.skills) {
      res.status(503).json({ error: 'skill execution is not available in this server' });
      return;
    }
    try {
      const opts = req.body as CliRunOptions;
      res.json(await runFromCli(deps.skills.services, deps.skills.config, deps.skills.defaultRoleId, opts));
    } catch (err) {
      if (err instanceof CliRunRefusal) {
        res.status(422).json({ error: err.message });
        return;
      }
      throw err;
    }
  });
  // Skill install and the role scope through the running server's live skill set .
  local.post('/skill/install', express.json(), async (req, res) => {
    const lifecycle = deps.skills?.lifecycle;
    if (!lifecycle) {
      res.status(503).json({ error: 'skill install is not available in this server' });
      return;
    }
    const b = req.body as { source?: unknown; roleId?: unknown };
    if (typeof b.source !== 'string' || !b.source.startsWith('/')) {
      res.json({ ok: false, warnings: [], error: 'source must be an absolute path' });
      return;
    }
    res.json(await lifecycle.install(b.source, typeof b.roleId === 'string' ? { roleId: b.roleId } : {}));
  });
  local.post('/skill/list', express.json(), async (req, res) => {
    const lifecycle = deps.skills?.lifecycle;
    if (!lifecycle) {
      res.status(503).json({ error: 'the live skill set is not available in this server' });
      return;
    }
    const role = String((req.body as { role?: unknown }).role ?? '');
    res.json({ ok: true, tools: deps.skills!.services.registry.tools({ skills: lifecycle.skillsFor(role) }) });
  });
  local.post('/config/set', express.json(), async (req, res) => {
    if (!deps.skills) {
      res.status(503).json({ error: 'skill configuration is not available in this server' });
      return;
    }
    const b = req.body as { roleId: string; skill: string; key: string; value: string; encrypt?: boolean };
    res.json(
      await setSkillConfig(deps.db, deps.skills.services.secretKey, {
        roleId: b.roleId,
        skill: b.skill,
        key: b.key,
        value: b.value,
        encrypt: b.encrypt === true,
        via: 'operator',
        lang: 'en',
      }),
    );
  });
  local.post('/config/get', express.json(), async (req, res) => {
    const b = req.body as { roleId: string; skill: string };
    res.json(await listSkillConfig(deps.db, b.roleId, b.skill));
  });
  local.post('/datatable/grant', express.json(), async (req, res) => {
    const { runGrantCommand } = await import('../admin/grants.ts');
    res.json(await runGrantCommand(deps.db, req.body as GrantCommandRequest));
  });
  local.post('/web/token', express.json(), async (req, res) => {
    const { runWebTokenCommand } = await import('../admin/web-tokens.ts');
    res.json(await runWebTokenCommand(deps.db, req.body as import('../admin/web-tokens.ts').WebTokenRequest));
  });
  local.post('/mcp/token', express.json(), async (req, res) => {
    const { runMcpTokenCommand } = await import('../admin/mcp-tokens.ts');
    res.json(await runMcpTokenCommand(deps.db, req.body as import('../admin/mcp-tokens.ts').McpTokenRequest));
  });
  local.post('/directory/import', express.json({ limit: '50mb' }), async (req, res) => {
    const { runDirectoryImport } = await import('../admin/directory-import.ts');
    res.json(await runDirectoryImport(deps.db, req.body as import('../admin/directory-import.ts').DirectoryImportRequest, deps.channels));
  });
  local.post('/notify/target', express.json(), async (req, res) => {
    const { runNotifyTargetCommand } = await import('../admin/notify-targets.ts');
    const out = await runNotifyTargetCommand(deps.db, req.body as import('../admin/notify-targets.ts').NotifyTargetRequest);
    res.status(out.ok ? 200 : 422).json(out);
  });
  local.post('/audit', express.json(), async (req, res) => {
    const { runAuditQuery } = await import('../admin/audit.ts');
    const out = await runAuditQuery(deps.db, req.body as import('../admin/audit.ts').AuditCommandRequest);
    if (out.ok) res.json(out);
    else res.status(422).json(out);
  });
  local.post('/inbox', express.json(), async (req, res) => {
    const { runInboxCommand } = await import('../admin/inbox.ts');
    const out = await runInboxCommand(deps.db, req.body as import('../admin/inbox.ts').InboxCommandRequest);
    res.status(out.ok ? 200 : 422).json(out);
  });
  app.use('/api/local', local);

  return app;
}

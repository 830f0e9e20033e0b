import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveWalls } from '../../src/config/walls.ts';
import { runSkill, type SkillServices } from '../../src/executor/run-skill.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openEmbeddedDb, openServerDb } from '../../src/store/open.ts';
import { createInvalidatedCache, SKILL_CONFIG_CHANNEL } from '../../src/store/invalidated-cache.ts';
const SKILLS = fileURLToPath(new URL('./skills/', import.meta.url));
const db = process.env.PURL ? openServerDb(process.env.PURL) : await openEmbeddedDb();
await migrate(db);
const dataDir = mkdtempSync(join(tmpdir(), 'sg-prof-'));
const services: SkillServices = {
  db, registry: await discoverSkills([{ dir: SKILLS, source: 'shared' }]),
  settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
  secretKey: randomBytes(32), log: createLogger({ level: 'silent' }),
  skillConfigCache: process.env.CACHE ? await createInvalidatedCache(db, SKILL_CONFIG_CHANNEL) : undefined,
};
const defaults = { role_id: 'default', org_id: 'demo', session_id: 'bench', channel: 'cli', chat_mode: true, allow_sql: true, team_role: 'member', is_admin: false };
for (let i = 0; i < 200; i++) await runSkill(services, { skill: 'bench_noop', input: {}, defaults, line: 'cli' });
const orig = db.query.bind(db); const counts = new Map<string, number>();
(db as any).query = (t: string, v?: unknown[]) => { const k = t.replace(/\s+/g,' ').slice(0,60); counts.set(k,(counts.get(k)??0)+1); return orig(t, v as any); };
const n = Number(process.env.N ?? 2000);
const t0 = performance.now();
for (let i = 0; i < n; i++) await runSkill(services, { skill: 'bench_noop', input: {}, defaults, line: 'cli' });
console.log('µs per call', ((performance.now() - t0) * 1000 / n).toFixed(1));
console.log([...counts].map(([k,c])=>`${(c/n).toFixed(2)} ${k}`).join('\n'));
await db.close();

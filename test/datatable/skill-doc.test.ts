import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/registry/preflight.ts';
import { DATATABLE_ACTIONS } from '../../src/datatable/model/types.ts';

const SKILLS = fileURLToPath(new URL('../../skills/', import.meta.url));

describe('skills/datatable and skills/nocodb on disk', () => {
  it('R-ACT-09/R-DT-01: SKILL.md < 8000 characters, the help table, three call examples, "pass the action as given"', () => {
    const md = readFileSync(`${SKILLS}datatable/SKILL.md`, 'utf8');
    expect(Array.from(md).length).toBeLessThan(8000);
    expect(md).toMatch(/action 必须按原样传入/);
    expect(md).toMatch(/\| 用户想要 \| 调用 \| 返回 \|/);
    const examples = [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { action: string });
    expect(examples).toHaveLength(3);
    for (const e of examples) expect(DATATABLE_ACTIONS).toContain(e.action);
    for (const a of DATATABLE_ACTIONS) expect(md, a).toContain(`\`${a}\``);
    expect(md).not.toMatch(/下一步：/); // R-ACT-08
  });

  it('R-LOAD-15: skill check passes for both folders (importing the gateway src/ is not a cross-skill import)', async () => {
    for (const name of ['datatable', 'nocodb']) {
      const issues = await preflight(`${SKILLS}${name}`, { mode: 'create' });
      expect(
        issues.filter((i) => i.severity === 'error'),
        name,
      ).toEqual([]);
    }
  });
});

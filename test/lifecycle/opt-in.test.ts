/**
 * Opt-in skills (secure by default): `create_skill` and `edit_skill` let a chat user
 * write code that runs with the gateway's rights, so `skills: ["*"]` never gives them; a role gets
 * them only by naming them (or by the console's override).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_SKILLS_DIR } from '../../src/config/settings.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { isOptIn, scopeNames } from '../../src/lifecycle/scope.ts';

describe('opt-in skills are not given by "*" (R-PRE-09)', () => {
  it('create_skill and edit_skill are opt-in; "*" gives every other built-in; naming them or an override enables them', async () => {
    const registry = await discoverSkills([{ dir: BUILTIN_SKILLS_DIR, source: 'builtin' }]);
    const all = registry.all();
    expect(
      all
        .filter(isOptIn)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['create_skill', 'edit_skill']);
    const none = new Map();
    const star = scopeNames(all, 'default', ['*'], none);
    expect(star).not.toContain('create_skill');
    expect(star).not.toContain('edit_skill');
    expect(star).toContain('datatable');
    expect(scopeNames(all, 'ghost', undefined, none)).not.toContain('create_skill');
    const named = scopeNames(all, 'default', ['*', 'create_skill'], none);
    expect(named).toContain('create_skill');
    expect(named).not.toContain('edit_skill');
    expect(named).toContain('help');
    expect(scopeNames(all, 'default', ['help', 'edit_skill'], none)).toEqual(expect.arrayContaining(['help', 'edit_skill']));
    const override = new Map([['default', new Map([['edit_skill', true]])]]);
    expect(scopeNames(all, 'default', ['*'], override)).toContain('edit_skill');
  });
});

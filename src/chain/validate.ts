/**
 * Save validation of a chain (R-CHAIN-01, R-CHAIN-08, R-CHAIN-16..24,
 * R-CHAIN-09/10, R-CHAIN-34, R-CHAIN-42).
 * One module for `chain check`, `chain save` and `POST /skills/chain/save`, so every entry
 * refuses the same chains. Each problem names the offending item.
 */
import type { Registry } from '../registry/discover.ts';
import { isFixedOrPlatformKey } from '../runtime/keys.ts';
import { COST_TIERS, STEP_KEYS, declaredInputs, shapeProblems, type ChainDocument } from './document.ts';
import { placeSteps } from './layers.ts';
import { REFERENCE_NAME_RE, collectReferences, referencesIn } from './references.ts';

/** One refusal reason. */
export interface ChainProblem {
  /** Stable code, e.g. `name.pattern`, `param.undeclared`, `steps.forward_ref`. */
  code: string;
  /** The offending item: `name`, `steps[2]`, `{city}`, `$steps.q`, `cost_tier`, … */
  item: string;
  /** English text naming the item. */
  message: string;
}

/** What validation looks things up in. */
export interface ValidateContext {
  /** The skills visible to the role (saved chains included as skill_type "chain"). */
  registry: Pick<Registry, 'get' | 'resolveTool'>;
  /** Names of saved chains (a step naming one is refused even when it is disabled). */
  chainNames?: ReadonlySet<string>;
}

/** Chain names: lower-case letter first, then lower-case letters, digits, underscore (R-CHAIN-17). */
export const CHAIN_NAME_RE = /^[a-z][a-z0-9_]*$/;
/** Step aliases (R-CHAIN-09). */
export const ALIAS_RE = /^[A-Za-z0-9_\u4e00-\u9fa5]+$/;

function outputFields(ctx: ValidateContext, skill: string): string[] | null {
  const rec = ctx.registry.resolveTool(skill)?.record ?? ctx.registry.get(skill);
  const props = rec?.outputSchema?.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return null;
  return Object.keys(props);
}

/**
 * Every problem of `doc`; empty when the chain may be saved.
 * Never throws, whatever `doc` is.
 */
export function validateChain(doc: unknown, ctx: ValidateContext): ChainProblem[] {
  const shape = shapeProblems(doc);
  if (shape.length > 0) return shape.map((m) => ({ code: 'document.shape', item: m.split(':')[0]!, message: m }));
  const d = doc as ChainDocument;
  const problems: ChainProblem[] = [];
  const add = (code: string, item: string, message: string) => problems.push({ code, item, message: `${item}: ${message}` });

  // Name (R-CHAIN-17).
  if (!CHAIN_NAME_RE.test(d.name)) {
    add('name.pattern', 'name', `chain name "${d.name}" must match ^[a-z][a-z0-9_]*$ (lower-case letters, digits, underscore; no hyphen)`);
  } else {
    const existing = ctx.registry.get(d.name);
    if (existing && existing.skillType !== 'chain') {
      add('name.taken', 'name', `chain name "${d.name}" is already used by an installed skill (${existing.source})`);
    }
  }
  // Description, steps (R-CHAIN-18), cost tier (R-CHAIN-24).
  if (typeof d.description !== 'string' || d.description.trim() === '')
    add('description.empty', 'description', 'a non-empty description ("when to use") is required');
  if (d.steps.length === 0) add('steps.empty', 'steps', 'a chain needs at least one step');
  if (d.cost_tier !== undefined && !COST_TIERS.includes(d.cost_tier)) {
    add('cost_tier.invalid', 'cost_tier', `"${d.cost_tier}" is not one of ${COST_TIERS.join(', ')}`);
  }

  // Inputs: reserved names (R-CHAIN-22).
  const inputs = declaredInputs(d);
  const badNames = new Set<string>();
  for (const name of Object.keys(inputs)) {
    if (isFixedOrPlatformKey(name))
      add('input.reserved', `input_schema.properties.${name}`, `input "${name}" collides with a reserved context key`);
    else if (!REFERENCE_NAME_RE.test(name)) {
      // R-CHAIN-34: `{a.b}` or `{my city}` can never reference it.
      badNames.add(name);
      add(
        'input.name',
        `input_schema.properties.${name}`,
        `input "${name}" may only hold letters (Chinese too), digits and underscore — no ".", whitespace, braces, "$" or quotes`,
      );
    }
  }

  // Step keys (R-CHAIN-01, R-CHAIN-08): no step type, condition, loop or pause.
  d.steps.forEach((s, i) => {
    for (const key of Object.keys(s)) {
      if (STEP_KEYS.includes(key)) continue;
      add(
        'step.unknown_key',
        `steps[${i}].${key}`,
        `a step has only ${STEP_KEYS.join(', ')}; chains do not pause, wait, branch or loop (that belongs to workflows)`,
      );
    }
  });

  // Aliases (R-CHAIN-09/10).
  const seen = new Set<string>();
  d.steps.forEach((s, i) => {
    if (s.alias === undefined || s.alias === '') return;
    if (!ALIAS_RE.test(s.alias))
      add('alias.pattern', `steps[${i}]`, `alias "${s.alias}" may only hold letters, digits, underscore and Chinese characters`);
    if (seen.has(s.alias)) add('alias.duplicate', `steps[${i}]`, `alias "${s.alias}" is used by an earlier step`);
    seen.add(s.alias);
  });
  const placed = placeSteps(d.steps);
  const position = new Map(placed.map((p) => [p.alias, p.index]));

  const used = new Set<string>();
  placed.forEach(({ step, alias, index }) => {
    const at = `steps[${index}]`;
    const skill = typeof step.skill_name === 'string' ? step.skill_name.trim() : '';
    // skill_name chosen (R-CHAIN-18), known, not a chain (R-CHAIN-23).
    if (!skill) add('step.skill_missing', `${at}.skill_name`, `step "${alias}" has no skill_name`);
    else {
      const rec = ctx.registry.resolveTool(skill)?.record;
      if (rec?.skillType === 'chain' || ctx.chainNames?.has(skill))
        add('step.nested_chain', `${at}.skill_name`, `step "${alias}" calls chain "${skill}": chains cannot contain chains`);
      else if (!rec)
        add('step.skill_unknown', `${at}.skill_name`, `step "${alias}" calls "${skill}", which is not a skill this role can use`);
    }
    // References (R-CHAIN-19/20/21).
    const refs = [
      ...collectReferences(step.params ?? {}),
      ...(typeof step.natural_desc === 'string' ? referencesIn(step.natural_desc) : []),
    ];
    for (const r of refs) {
      if (r.kind === 'input') {
        const field = r.path[0] ?? '';
        used.add(field);
        const braced = r.text.trim().startsWith('{') && !r.text.includes('$');
        if (braced && !Object.hasOwn(inputs, field) && !isFixedOrPlatformKey(field)) {
          add('param.undeclared', `{${field}}`, `step "${alias}" (${at}) uses {${field}}, which input_schema.properties does not declare`);
        }
      } else if (r.kind === 'steps') {
        const target = r.alias!;
        const pos = position.get(target);
        if (pos === undefined)
          add('steps.unknown_alias', `$steps.${target}`, `step "${alias}" (${at}) refers to $steps.${target}, but no step has that alias`);
        else if (pos >= index)
          add('steps.forward_ref', `$steps.${target}`, `step "${alias}" (${at}) refers to $steps.${target}, which is not placed before it`);
        else if (r.path.length > 0) {
          const targetSkill = String(placed[pos]!.step.skill_name ?? '').trim();
          const fields = targetSkill ? outputFields(ctx, targetSkill) : null;
          const field = r.path[0]!;
          if (fields && !fields.includes(field)) {
            add(
              'steps.unknown_field',
              `$steps.${target}.${field}`,
              `step "${alias}" (${at}) reads field "${field}" of ${targetSkill}, whose output fields are: ${fields.join(', ')}`,
            );
          }
        }
      }
    }
  });
  for (const name of Object.keys(inputs)) {
    if (!used.has(name) && !isFixedOrPlatformKey(name) && !badNames.has(name))
      add('param.unused', `{${name}}`, `input "${name}" is declared but no step references it`);
  }
  return problems;
}

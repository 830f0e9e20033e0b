/**
 * Layering steps by the `$steps.` reference graph (R-CHAIN-35, R-CHAIN-37).
 * Steps of one layer are independent and may run in parallel; layers run in order. A cycle or
 * a reference to an unknown alias degrades the remaining steps to sequential order (one step
 * per layer, document order) — never an exception.
 */
import { stepDependencies } from './references.ts';
import type { ChainStep } from './document.ts';

/** A step with its effective alias and document position. */
export interface PlacedStep {
  step: ChainStep;
  alias: string;
  /** 0-based document position. */
  index: number;
}

/**
 * Effective aliases: the given one, else `step{N}` (1-based); duplicates renamed `q_2`, `q_3`…
 * as a fallback for hand-edited chains (R-CHAIN-09, R-CHAIN-10).
 */
export function placeSteps(steps: readonly ChainStep[]): PlacedStep[] {
  const used = new Set<string>();
  return steps.map((step, index) => {
    const base = typeof step.alias === 'string' && step.alias.trim() !== '' ? step.alias.trim() : `step${index + 1}`;
    let alias = base;
    for (let n = 2; used.has(alias); n++) alias = `${base}_${n}`;
    used.add(alias);
    return { step, alias, index };
  });
}

/** The layers, plus whether the plan fell back to sequential order (and why). */
export interface LayerPlan {
  layers: PlacedStep[][];
  /** Set when a cycle or an unknown alias made the remaining steps sequential. */
  degraded?: 'cycle' | 'unknown_alias';
}

/** Split placed steps into layers (Kahn's algorithm); see the module comment for degradation. */
export function planLayers(placed: readonly PlacedStep[]): LayerPlan {
  const known = new Set(placed.map((p) => p.alias));
  const deps = new Map<string, Set<string>>();
  let unknown = false;
  placed.forEach((p, i) => {
    const d = stepDependencies(p.step.params, i > 0 ? placed[i - 1]!.alias : undefined);
    d.delete(p.alias);
    for (const a of d) if (!known.has(a)) unknown = true;
    deps.set(p.alias, d);
  });
  const layers: PlacedStep[][] = [];
  const done = new Set<string>();
  let remaining = [...placed];
  while (remaining.length > 0) {
    const ready = remaining.filter((p) => [...deps.get(p.alias)!].every((a) => done.has(a)));
    if (ready.length === 0) {
      for (const p of remaining) layers.push([p]);
      return { layers, degraded: unknown ? 'unknown_alias' : 'cycle' };
    }
    layers.push(ready);
    for (const p of ready) done.add(p.alias);
    remaining = remaining.filter((p) => !done.has(p.alias));
  }
  return { layers };
}

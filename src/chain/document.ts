/**
 * The chain document (docs/chains.md; R-CHAIN-08..15) and its
 * structural JSON Schema (ajv). Semantic save rules live in validate.ts.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvClass } from '../config/lazy-packages.ts';
import type { JsonSchema } from '../registry/types.ts';

/** What a step does when its skill fails (R-CHAIN-11..13); default `abort`. */
export type OnFail = 'abort' | 'skip' | 'continue';

/** One step: `{skill_name, alias?, params, on_fail?, default_value?, natural_desc?}`. */
export interface ChainStep {
  /** The skill (or `<skill>__<sub>` tool) this step calls; "" is a step failure (R-CHAIN-15). */
  skill_name: string;
  /** Name other steps reference as `$steps.<alias>`; default `step{N}` (1-based, R-CHAIN-09). */
  alias?: string;
  /** The step's input; strings may hold references (references.ts). */
  params?: Record<string, unknown>;
  on_fail?: OnFail;
  /** Result of a failed `continue` step (R-CHAIN-14). */
  default_value?: unknown;
  /** Free text describing the step; its `{param}` placeholders count as references (R-CHAIN-19). */
  natural_desc?: string;
}

/** A chain document as written in a file or stored by `chain save`. */
export interface ChainDocument {
  /** `^[a-z][a-z0-9_]*$` (R-CHAIN-17). */
  name: string;
  /** "When to use" — the tool description the model sees (R-CHAIN-18). */
  description: string;
  /** JSON Schema of the chain-level inputs (`{param}` references). */
  input_schema?: JsonSchema;
  steps: ChainStep[];
  /** zero | low | medium | high (R-CHAIN-24). */
  cost_tier?: string;
  /** false hides the saved chain from the model (R-CHAIN-25); default true. */
  enabled?: boolean;
}

/**
 * The keys a step may have (R-CHAIN-08, docs/chains.md). There is no step type, condition,
 * loop or pause key: chains do not pause, wait, branch or loop (R-CHAIN-01).
 */
export const STEP_KEYS: readonly string[] = ['skill_name', 'alias', 'params', 'on_fail', 'default_value', 'natural_desc'];

/** Allowed cost tiers (R-CHAIN-24). */
export const COST_TIERS: readonly string[] = ['zero', 'low', 'medium', 'high'];

/** Structural schema of a chain document (types only; the rules of §保存校验 are in validate.ts). */
export const CHAIN_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['name', 'steps'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    input_schema: { type: 'object' },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          skill_name: { type: 'string' },
          alias: { type: 'string' },
          params: { type: 'object' },
          on_fail: { enum: ['abort', 'skip', 'continue'] },
          default_value: {},
          natural_desc: { type: 'string' },
        },
      },
    },
    cost_tier: { type: 'string' },
    enabled: { type: 'boolean' },
  },
} as const;

/** Compiled at the first check, not when a start imports this module (docs/performance.md "Start-up"). */
let checkShape: ValidateFunction | undefined;

function describeAjvError(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.replace(/^\//, '').replace(/\//g, '.') : 'document';
  if (e.keyword === 'enum') return `${where}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${where}: ${e.message ?? 'invalid'}`;
}

/**
 * Check the document's structure.
 * @returns problems as `<path>: <message>` lines (empty when the shape is right).
 */
export function shapeProblems(doc: unknown): string[] {
  checkShape ??= new (ajvClass())({ allErrors: true, strict: false }).compile(CHAIN_DOCUMENT_SCHEMA);
  if (checkShape(doc)) return [];
  return (checkShape.errors ?? []).map(describeAjvError);
}

/**
 * Parse a chain document from JSON text.
 * @throws SyntaxError on invalid JSON or a non-object.
 */
export function parseChainDocument(text: string): ChainDocument {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SyntaxError('a chain document must be a JSON object');
  return value as ChainDocument;
}

/** Declared chain inputs: `input_schema.properties` (empty when absent). */
export function declaredInputs(doc: Pick<ChainDocument, 'input_schema'>): Record<string, unknown> {
  const props = doc.input_schema?.properties;
  return typeof props === 'object' && props !== null && !Array.isArray(props) ? (props as Record<string, unknown>) : {};
}

/** Required chain inputs: `input_schema.required` strings. */
export function requiredInputs(doc: Pick<ChainDocument, 'input_schema'>): string[] {
  const req = doc.input_schema?.required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

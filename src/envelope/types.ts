/**
 * The result envelope (R-OUT-01..04). A skill returns an object; the
 * platform normalises it into an {@link Envelope} without re-wrapping (README.md "The skillgate command").
 */
import type { MediaKind } from '../runtime/types.ts';

/** `error_type` values (R-OUT-03). `config` also marks needs_config. */
export type ErrorType = 'recoverable' | 'config' | 'transient';

/**
 * A normalised result: the skill's own object (non-objects wrapped as `{result}`), with
 * `success:false` + a non-empty `error` on failure. Platform additions at the top level.
 */
export interface Envelope extends Record<string, unknown> {
  success?: boolean;
  ok?: boolean;
  error?: string;
  error_type?: ErrorType | string;
  non_retriable?: boolean;
  need_param?: string | string[];
  redirect?: string;
  action_note?: string;
  user_message?: string;
  display_md?: string;
  display_only?: boolean;
  /** Every artifact registered for this call (README.md "The skillgate command"); `[]` if none. */
  artifacts?: ArtifactRef[];
  /**
   * Platform note (artifact stage): links that were refused or failed to download, declared
   * files that are missing or outside the workspace, failed registrations. Never a failure.
   */
  artifact_errors?: Array<{ url?: string; path?: string; error: string }>;
  /** Set on an offload receipt (R-OFF-02; see envelope/offload.ts). */
  offloaded?: boolean;
}

/** One registered artifact as shown at the top level of `skill run` output. */
export interface ArtifactRef {
  filename: string;
  /** Absolute path inside the workspace. */
  local_path: string;
  media: MediaKind;
}

/** What an executor hands back before normalisation. */
export type RawOutcome =
  /** The skill produced a value (any JSON value; normalised later). */
  | { kind: 'returned'; value: unknown }
  /**
   * A technical failure (exception, non-zero exit, timeout, abort, unsupported exec type):
   * becomes `{success:false, error, error_type?, non_retriable?}` (R-OUT-09).
   */
  | { kind: 'failed'; error: string; error_type?: ErrorType; non_retriable?: boolean; details?: Record<string, unknown> };

/**
 * Top-level keys of a result that steer the platform (the envelope, display, confirmation,
 * artifacts) rather than carry data (docs/results.md). Rendering hides them; a datatable record
 * never lets a field of one of these names act as one.
 */
export const ENVELOPE_CONTROL_KEYS: readonly string[] = [
  'success',
  'ok',
  'error',
  'error_type',
  'non_retriable',
  'need_param',
  'redirect',
  'action_note',
  'user_message',
  'display_md',
  'display_only',
  'need_confirm',
  'confirm_token',
  'offloaded',
  'artifacts',
  'artifact_errors',
  'local_path',
];

/**
 * Shapes shared by the artifact stage (R-ART-01..12).
 */
import type { Logger } from '../../log/logger.ts';
import type { ArtifactRef } from '../types.ts';

/** Where an artifact came from: declared in the result, a materialised URL, or collected. */
export type ArtifactOrigin = 'declared' | 'url' | 'collected';

/** An artifact found by one of the steps, before de-duplication and registration. */
export interface FoundArtifact extends ArtifactRef {
  origin: ArtifactOrigin;
  /** The real path (symlinks resolved), used to de-duplicate. */
  real_path: string;
  /** The remote URL it was downloaded from (origin `url`). */
  url?: string;
}

/**
 * A note about an artifact that could not be delivered (a refused or failed download, a
 * declared file that is missing or outside the workspace). Goes into the envelope's
 * top-level `artifact_errors`; never fails the skill.
 */
export interface ArtifactError {
  url?: string;
  path?: string;
  error: string;
}

/** The logger surface the artifact stage uses (a pino Logger fits). */
export type ArtifactLog = Pick<Logger, 'warn' | 'info' | 'debug'>;

/** Root-level files of a workspace before a call: name → size (bytes) and mtime (ms). */
export interface Snapshot {
  /** The real path of the workspace when the snapshot was taken. */
  dir: string;
  files: Record<string, { size: number; mtimeMs: number }>;
  /** The folder could not be read (it does not exist): `files` is empty. */
  missing?: true;
  /**
   * Set when the root held only dotfiles and plain sub-folders and had been left alone long
   * enough: its folder's stamp then (src/envelope/artifacts/collect.ts `snapshotWorkspace`).
   */
  settled?: DirStamp;
}

/** A folder's identity and change times, ns, as one `stat` reports them. */
export interface DirStamp {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/** Language of user-visible notes (zh-CN default). */
export type ArtifactLang = 'zh-CN' | 'en';

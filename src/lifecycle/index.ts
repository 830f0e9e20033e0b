/**
 * Skill lifecycle: the danger scan and the create/edit operations on role-scoped
 * skills. R-PRE-06..09.
 */
export {
  scanSkillDir,
  scanFile,
  scanSource,
  scanLanguage,
  hasCritical,
  sortFindings,
  DANGER_RULES,
  MAX_SCAN_BYTES,
  type DangerFinding,
  type DangerRule,
  type DangerSeverity,
} from './danger-scan.ts';
export {
  createRoleSkill,
  editRoleSkill,
  MAX_FILE_BYTES,
  MAX_FILES,
  type SkillEditResult,
  type EditRefusal,
  type EditRefusalCode,
  type CreateRoleSkillRequest,
  type EditRoleSkillRequest,
  type RoleSkillScope,
} from './skill-edit.ts';
export { roleSkillRoot, roleSkillsDir, ROLE_SKILLS_DIR, unsafePath, isCreateFile, isEditFile } from './role-paths.ts';
export { createSkillLifecycle, type LifecycleOptions, type LiveSkillLifecycle } from './live.ts';
export type { SkillLifecycle, ReloadReport, RoleSkillState, InstallResult } from './types.ts';

/**
 * The identity module: the directory (contacts, departments, teams),
 * actor_* fields of a sender, the admin proxy-fill and the role access policy. Docs:
 * docs/directory.md.
 */
export { directoryOrgId } from './org.ts';
export { findContact, listContacts } from './contacts.ts';
export { resolveActor, actorFieldsFor, emptyActorFields, type ResolveActorArgs, type ActorGiven } from './resolve.ts';
export { checkAccess, type AccessDecision } from './access.ts';
export { importDirectory, DirectoryFormatError, type ImportDirectoryArgs } from './import.ts';
export { seedDemoDirectory, DEMO_CONTACTS } from './demo.ts';
export { departmentPathFor, ensureDepartmentPath, parseDepartmentPath } from './departments.ts';
export type {
  Contact,
  ResolvedActor,
  ActorFields,
  ImportReport,
  ImportIssue,
  Lang,
  TeamRole,
} from './types.ts';

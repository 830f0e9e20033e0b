/**
 * Sessions, workspaces, attachment records and reference ids.
 * README.md "The skillgate command".
 */
export { safeSegment, workspaceDir, attachmentStoreDir, ensureWorkspace } from './workspace.ts';
export {
  getOrCreateSession,
  getSession,
  newSessionId,
  sessionIdForWorkspace,
  type SessionRecord,
  type SessionSpec,
} from './sessions.ts';
export {
  registerAttachment,
  listAttachments,
  getAttachment,
  toAttachmentItems,
  attachmentRefs,
  REF_PREFIX,
  type AttachmentRecord,
  type AttachmentOrigin,
  type NewAttachment,
} from './attachments.ts';
export { mediaKindOf } from './media-kind.ts';

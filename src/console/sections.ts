/**
 * The console's sections, in navigation order (docs/console.md "Sections").
 * A flat list: one import and one entry per section. Each entry's routes are mounted at
 * `/admin/api/<id>/` and its page module is `public/sections/<id>.js`.
 */
import type { AdminSection } from './kit.ts';
import { skillsSection } from './api/skills.ts';
import { secretsSection } from './api/secrets.ts';
import { outboxSection } from './api/outbox.ts';
import { inboxSection } from './api/inbox.ts';
import { webSessionsSection } from './api/websessions.ts';
import { auditSection } from './api/audit.ts';
import { directorySection } from './api/directory.ts';
import { grantsSection } from './api/grants.ts';
import { tablesSection } from './api/tables.ts';
import { notifySection } from './api/notify.ts';
import { schedulesSection } from './api/schedules.ts';
import { proxySection } from './api/proxy.ts';
import { mcpSection } from './api/mcp.ts';

export type { AdminDeps, AdminSection, AdminIdentity } from './kit.ts';

/** Every section of the console. */
export const ADMIN_SECTIONS: AdminSection[] = [
  skillsSection,
  secretsSection,
  outboxSection,
  inboxSection,
  webSessionsSection,
  auditSection,
  directorySection,
  grantsSection,
  tablesSection,
  notifySection,
  schedulesSection,
  proxySection,
  mcpSection,
];

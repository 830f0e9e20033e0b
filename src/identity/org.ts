/**
 * The org the directory is keyed by (R-ORG-02/03).
 */
import { pseudoOrgId } from '../runtime/cfg.ts';

/**
 * The directory org of a role: `trim(orgId)` when non-empty, else the pseudo org
 * `r_<roleId>` (R-ORG-02: profile and department rows are stored under it; R-ORG-03: the
 * same rule skills use, {@link pseudoOrgId}). Datatable operations never use it (R-ORG-04).
 */
export function directoryOrgId(orgId: string, roleId: string): string {
  return pseudoOrgId({ org_id: orgId, role_id: roleId });
}

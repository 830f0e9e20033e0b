/**
 * A live view of a registry that is replaced at run time (a hot reload, a chain save): every
 * method reads the registry `current()` returns at the moment of the call.
 */
import type { Registry } from './discover.ts';

/** A {@link Registry} that always answers from `current()`. */
export function liveRegistry(current: () => Registry): Registry {
  return {
    all: () => current().all(),
    get: (name) => current().get(name),
    tools: (filter) => current().tools(filter),
    resolveTool: (toolName) => current().resolveTool(toolName),
    issues: () => current().issues(),
  };
}

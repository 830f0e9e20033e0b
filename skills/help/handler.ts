/**
 * The built-in `help` skill: what the caller's role can do, from the same tool
 * list a model sees (README.md "The skillgate command"), shown verbatim (`display_only`, R-DISP-07).
 */
import { loadConfigFile } from '../../src/config/file.ts';
import { loadSettings } from '../../src/config/settings.ts';
import { catalogTools, publishCatalog } from '../../src/registry/catalog.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { helpText } from '../../src/turn/planners/command-help.ts';

export async function execute(input_data: { lang?: string }, runtime_context: { role_id?: string }) {
  const roleId = runtime_context.role_id || 'default';
  let tools = catalogTools(roleId);
  if (!tools) {
    // run outside the gateway and the CLI (a test harness): discover as the gateway would
    const settings = loadSettings();
    publishCatalog(await discoverSkills(settings.skillRoots), loadConfigFile(settings.configPath, settings));
    tools = catalogTools(roleId) ?? [];
  }
  const lang = input_data.lang === 'en' ? 'en' : 'zh-CN';
  return {
    skills: tools.map((t) => t.function.name),
    display_md: helpText(tools, lang),
    display_only: true,
  };
}

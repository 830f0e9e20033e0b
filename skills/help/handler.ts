/**
 * The built-in `help` skill: what the caller's role can do, from the same tool
 * list a model sees (README.md "The skillgate command"), shown verbatim (`display_only`, R-DISP-07).
 * With `skill`, that one skill's `/help <skill>` (a suggestion picked from the plain-text
 * answer, docs/chat-authoring.md "Plain text").
 */
import { loadConfigFile } from '../../src/config/file.ts';
import { loadSettings } from '../../src/config/settings.ts';
import { catalogSchema, catalogTools, publishCatalog } from '../../src/registry/catalog.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { helpText, skillHelp } from '../../src/turn/planners/command-help.ts';
import { lookupTool } from '../../src/turn/planners/command-tools.ts';

export async function execute(input_data: { lang?: string; skill?: string }, runtime_context: { role_id?: string }) {
  const roleId = runtime_context.role_id || 'default';
  let tools = catalogTools(roleId);
  if (!tools) {
    // run outside the gateway and the CLI (a test harness): discover as the gateway would
    const settings = loadSettings();
    publishCatalog(await discoverSkills(settings.skillRoots), loadConfigFile(settings.configPath, settings));
    tools = catalogTools(roleId) ?? [];
  }
  const lang = input_data.lang === 'en' ? 'en' : 'zh-CN';
  const wanted = typeof input_data.skill === 'string' ? input_data.skill.trim() : '';
  if (wanted) {
    const found = lookupTool(wanted, tools);
    if (found.kind !== 'found') {
      return {
        success: false,
        user_message: lang === 'en' ? `There is no skill named "${wanted}".` : `没有名为「${wanted}」的技能。`,
      };
    }
    const name = found.tool.function.name;
    return { skills: [name], display_md: skillHelp(found.tool, tools, lang, catalogSchema(name)), display_only: true };
  }
  return {
    skills: tools.map((t) => t.function.name),
    display_md: helpText(tools, lang),
    display_only: true,
  };
}

/**
 * Shared parts of the `skillgate chain …` commands (docs/chains.md): settings, reading a
 * chain document file, the discovered skills.
 */
import { readFileSync } from 'node:fs';
import { loadConfigFile, type ConfigFile } from '../../config/file.ts';
import { loadSettings, type Settings } from '../../config/settings.ts';
import { parseChainDocument, type ChainDocument } from '../../chain/document.ts';
import { discoverSkills, type Registry } from '../../registry/discover.ts';
import { CliError, EXIT_FAILED, EXIT_REFUSED } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';

/** Settings and config file; a configuration problem is "input refused" (exit 1). */
export function chainSettings(): { settings: Settings; config: ConfigFile } {
  return configErrorsAsRefusal(() => {
    const settings = loadSettings();
    return { settings, config: loadConfigFile(settings.configPath, configDefaults(settings)) };
  });
}

/**
 * Read a chain document file.
 * @throws CliError exit 2 when unreadable, exit 1 when not a JSON object.
 */
export function readChainFile(file: string): ChainDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, EXIT_FAILED);
  }
  try {
    return parseChainDocument(text);
  } catch (err) {
    throw new CliError(`${file}: not a chain document: ${(err as Error).message}`, EXIT_REFUSED);
  }
}

/** The discovered skills of the configured roots. */
export function discover(settings: Settings): Promise<Registry> {
  return discoverSkills(settings.skillRoots);
}

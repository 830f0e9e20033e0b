/**
 * `skillgate skill run <name|dir> [--input JSON] [--context JSON] [--workspace DIR]
 * [--raw-input TEXT] [--role R]` — one call through the whole pipeline; prints the final
 * envelope as one JSON document on stdout; exit 0 whenever an envelope was produced, even a
 * failed one (README.md "The skillgate command"). With an embedded data dir held by a running server, the call
 * runs in that server (README.md "The skillgate command").
 */
import { loadConfigFile, roleTimeZone } from '../../config/file.ts';
import { resolveSecretKey } from '../../config/secret-key.ts';
import { loadSettings } from '../../config/settings.ts';
import type { Envelope } from '../../envelope/types.ts';
import { wireSkillCall } from '../../wiring/skill-call.ts';
import { CliRunRefusal, runFromCli, type CliRunOptions } from '../../executor/cli-run.ts';
import { log } from '../../log/logger.ts';
import { createSkillLifecycle } from '../../lifecycle/live.ts';
import { publishCatalog } from '../../registry/catalog.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';

/** Raw options as commander gives them. */
export interface SkillRunFlags {
  input?: string;
  context?: string;
  workspace?: string;
  rawInput?: string;
  role?: string;
}

function parseObject(flag: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${flag} is not valid JSON: ${(err as Error).message}`, EXIT_REFUSED);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(`${flag} must be a JSON object`, EXIT_REFUSED);
  }
  return value as Record<string, unknown>;
}

/** Run the command. @returns 0 when an envelope was printed. */
export async function skillRunCommand(target: string, flags: SkillRunFlags, io: CliIO): Promise<number> {
  const opts: CliRunOptions = {
    target,
    input: parseObject('--input', flags.input),
    context: parseObject('--context', flags.context),
    workspace: flags.workspace,
    rawInput: flags.rawInput,
    role: flags.role,
    cwd: process.cwd(),
  };
  const { settings, config } = configErrorsAsRefusal(() => {
    const settings = loadSettings();
    return { settings, config: loadConfigFile(settings.configPath, configDefaults(settings)) };
  });
  // `${PORT}` in HTTP skills (gateway_health) means the configured gateway port here too.
  process.env.PORT ??= String(settings.port);
  // stdout carries exactly one JSON document (README.md "The skillgate command"): while the skill runs in this
  // process, whatever it writes to stdout (console.log in a handler) goes to stderr.
  const stdoutWrite = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  let envelope: Envelope;
  try {
    envelope = await withCliDb<Envelope>(settings, {
      direct: async (db) => {
        // The live skill set without watching: installed and role skills, the console's overrides.
        const lifecycle = await createSkillLifecycle({ db, settings, config, log: log(), watch: false });
        const registry = lifecycle.registry();
        publishCatalog(registry, config, lifecycle.skillsFor);
        const base = {
          db,
          registry,
          settings,
          secretKey: resolveSecretKey(settings),
          log: log(),
          skillsFor: lifecycle.skillsFor,
          timeZoneFor: (roleId: string) => roleTimeZone(config, roleId),
        };
        const services = { ...base, call: wireSkillCall(base, { reload: (reason) => lifecycle.reload(reason) }) };
        try {
          return await runFromCli(services, config, settings.roleId, opts);
        } catch (err) {
          if (err instanceof CliRunRefusal) throw new CliError(err.message, EXIT_REFUSED);
          throw err;
        } finally {
          await lifecycle.close();
        }
      },
      viaServer: (call) => call<Envelope>('POST', '/api/local/skill/run', opts),
    });
  } finally {
    process.stdout.write = stdoutWrite;
  }
  printJson(io, envelope);
  return EXIT_OK;
}

/**
 * `skillgate config set <skill> <key> [value] [--role R] [--secret]` — save a skill
 * parameter for a role (README.md "The skillgate command" "Skill parameters come from the store"; R-CFG-01,
 * R-CFG-03, R-CFG-05).
 *
 * Secrets never sit in argv or shell history: with `--secret` the value is read from stdin
 * (one trailing newline removed) and stored encrypted; a secret-named key given with a value
 * on the command line is refused (exit 1) with a hint to use `--secret`.
 */
import { resolveSecretKey } from '../../config/secret-key.ts';
import { loadSettings, type Settings } from '../../config/settings.ts';
import { isSecretName } from '../../registry/secrets.ts';
import { normalizeConfigKey, setSkillConfig, MAX_CONFIG_VALUE_LENGTH, type SetSkillConfigResult } from '../../runtime/skill-config.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';
import { configErrorsAsRefusal } from '../settings.ts';

/** Settings for a config command; a configuration problem is "input refused" (exit 1). */
export function configSettings(): Settings {
  return configErrorsAsRefusal(() => loadSettings());
}

/**
 * Read all of `stream` as UTF-8 and remove one trailing `\n` / `\r\n`.
 * @throws CliError (exit 1) when more than the longest accepted value arrives.
 */
export async function readSecretFromStdin(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (text.length > MAX_CONFIG_VALUE_LENGTH + 2) throw new CliError('the value on stdin is too long', EXIT_REFUSED);
  }
  return text.replace(/\r?\n$/, '');
}

/**
 * Run `config set`.
 * @param stdin where `--secret` reads the value (default process.stdin).
 * @returns 0 saved; 1 refused (missing value, secret on argv, reserved or invalid name,
 *   empty secret); throws CliError exit 2 when the database cannot be reached.
 */
export async function configSetCommand(
  skill: string,
  key: string,
  value: string | undefined,
  opts: { role?: string; secret?: boolean },
  io: CliIO,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  const name = normalizeConfigKey(key);
  if (opts.secret) {
    if (value !== undefined) {
      io.stderr('skillgate: with --secret the value is read from stdin; do not put it on the command line\n');
      return EXIT_REFUSED;
    }
    if ((stdin as { isTTY?: boolean }).isTTY) io.stderr(`skillgate: type the value of ${name}, then press Ctrl-D\n`);
    value = await readSecretFromStdin(stdin);
  } else {
    if (value === undefined) {
      io.stderr(`skillgate: missing value for ${name} (or use --secret to read it from stdin)\n`);
      return EXIT_REFUSED;
    }
    if (isSecretName(name)) {
      io.stderr(
        `skillgate: ${name} is a secret-named parameter; its value must not be given on the command line (shell history, process list). ` +
          `Use: skillgate config set ${skill} ${name} --secret  (and type or pipe the value on stdin)\n`,
      );
      return EXIT_REFUSED;
    }
  }
  const settings = configSettings();
  const roleId = opts.role?.trim() || settings.roleId;
  const request = { roleId, skill, key: name, value, encrypt: opts.secret === true };
  const result = await withCliDb<SetSkillConfigResult>(settings, {
    direct: (db) => setSkillConfig(db, resolveSecretKey(settings), { ...request, via: 'operator', lang: 'en' }),
    viaServer: (call) => call<SetSkillConfigResult>('POST', '/api/local/config/set', request),
  });
  if (!result.ok) {
    io.stderr(`skillgate: ${result.user_message}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(`set ${skill}.${result.key} for role ${roleId}${result.encrypted ? ' (encrypted)' : ''}\n`);
  return EXIT_OK;
}

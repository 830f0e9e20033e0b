/**
 * `skillgate chain run <file|name> [--input JSON] [--context JSON] [--role R]`
 * (docs/chains.md): prints the runner's return object as one JSON document; exit 0 whenever
 * a result was produced, even a failed one (`ok: false`, like `skill run`); exit 1 for bad
 * arguments, an unknown chain or a missing required chain input (one line per input).
 * Steps run with `chat_mode = false` (D-05) in one session derived like `skill run`'s.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveSecretKey } from '../../config/secret-key.ts';
import { requiredInputs, type ChainDocument } from '../../chain/document.ts';
import type { ChainResult } from '../../chain/runner.ts';
import { withCall } from '../../wiring/skill-call.ts';
import { withChainRegistry } from '../../chain/services.ts';
import { runChainDocument } from '../../chain/skill.ts';
import { getChain } from '../../chain/store.ts';
import { callFromContext } from '../../executor/request.ts';
import { log } from '../../log/logger.ts';
import { sessionIdForWorkspace } from '../../session/sessions.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { chainSettings, discover, readChainFile } from './chain-common.ts';

function parseObject(flag: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${flag} is not valid JSON: ${(err as Error).message}`, EXIT_REFUSED);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError(`${flag} must be a JSON object`, EXIT_REFUSED);
  return value as Record<string, unknown>;
}

/** Run `chain run`. */
export async function chainRunCommand(
  target: string,
  flags: { input?: string; context?: string; role?: string },
  io: CliIO,
): Promise<number> {
  const input = parseObject('--input', flags.input);
  const context = parseObject('--context', flags.context);
  const fromFile =
    target.endsWith('.json') || target.includes('/') ? readChainFile(target) : existsSync(target) ? readChainFile(target) : undefined;
  const { settings, config } = chainSettings();
  const roleId = flags.role ?? ((typeof context.role_id === 'string' && context.role_id) || settings.roleId);
  const role = config.roles.find((r) => r.id === roleId);
  if (!role) throw new CliError(`unknown role "${roleId}"`, EXIT_REFUSED);
  const base = await discover(settings);
  const stdoutWrite = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  let result: ChainResult;
  try {
    result = await withCliDb(settings, {
      direct: async (db) => {
        let doc: ChainDocument | undefined = fromFile;
        if (!doc) {
          doc = (await getChain(db, target))?.document;
          if (!doc) throw new CliError(`no saved chain named "${target}" and no such file`, EXIT_REFUSED);
        }
        // The chain's own required inputs are checked before any step runs (as POST /skills/chain/test).
        const missing = requiredInputs(doc).filter((k) => input[k] === undefined || input[k] === null || input[k] === '');
        if (missing.length > 0) {
          throw new CliError(missing.map((k) => `{${k}}: required chain input is missing (give it with --input)`).join('\n'), EXIT_REFUSED);
        }
        const services = withCall(
          await withChainRegistry({ db, registry: base, settings, secretKey: resolveSecretKey(settings), log: log() }),
        );
        const workspace = resolve(settings.dataDir, 'workspaces', roleId, 'chain');
        const sessionId =
          typeof context.session_id === 'string' && context.session_id ? context.session_id : sessionIdForWorkspace(workspace);
        // `--context` parsed once (src/executor/request.ts) over the CLI line's defaults.
        const parties = callFromContext(context, {
          role_id: roleId,
          org_id: role.org_id,
          session_id: sessionId,
          channel: 'cli',
          chat_mode: false,
          allow_sql: true,
          team_role: 'member',
          is_admin: false,
        });
        return runChainDocument(services, { doc, input, ...parties });
      },
    });
  } finally {
    process.stdout.write = stdoutWrite;
  }
  printJson(io, result);
  return EXIT_OK;
}

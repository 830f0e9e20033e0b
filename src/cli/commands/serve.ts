/**
 * `skillgate serve` — start the gateway and run until SIGINT/SIGTERM.
 */
import { ConfigError } from '../../config/errors.ts';
import { loadSettings } from '../../config/settings.ts';
import { startGateway } from '../../gateway.ts';
import { log } from '../../log/logger.ts';
import { DataDirBusyError } from '../../store/datadir.ts';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';

/** Start the gateway; resolves with exit code 0 after a clean shutdown. */
export async function serveCommand(_io: CliIO): Promise<number> {
  let gateway;
  try {
    gateway = await startGateway(loadSettings(), log());
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`, EXIT_REFUSED);
    if (err instanceof DataDirBusyError) throw new CliError(err.message, EXIT_FAILED);
    throw err;
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      log().info({ signal }, 'shutting down');
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await gateway.close();
  return EXIT_OK;
}

/**
 * `skillgate serve` — start the gateway and run until SIGINT/SIGTERM.
 */
import { loadSettings } from '../../config/settings.ts';
import { startGateway } from '../../gateway.ts';
import { log } from '../../log/logger.ts';
import { DataDirBusyError } from '../../store/datadir.ts';
import { CliError, EXIT_FAILED, EXIT_OK, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configErrorsAsRefusalAsync } from '../settings.ts';

/** Start the gateway; resolves with exit code 0 after a clean shutdown. */
export async function serveCommand(_io: CliIO): Promise<number> {
  const settings = configErrorsAsRefusal(() => loadSettings());
  let gateway;
  try {
    gateway = await configErrorsAsRefusalAsync(() => startGateway(settings, log()));
  } catch (err) {
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

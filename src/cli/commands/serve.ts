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
  // HTTP skills address this gateway as `${PORT}` (skills/examples/gateway_health): the port
  // actually bound (PORT=0 picks a free one, and .env values are not in process.env).
  process.env.PORT = String(gateway.port);
  // A terminal's Ctrl-C reaches node twice (directly and relayed by `npm start`), so the
  // handler stays installed until the shutdown is over: a repeated signal is only logged, a
  // third one within the shutdown forces the exit (in-flight turns then resume after restart).
  let signals = 0;
  let requested!: () => void;
  const stopRequested = new Promise<void>((resolve) => (requested = resolve));
  const onSignal = (signal: string): void => {
    signals++;
    if (signals === 1) {
      log().info({ signal }, 'shutting down (in-flight turns finish first)');
      requested();
    } else if (signals === 2) {
      log().info({ signal }, 'already shutting down (a further Ctrl-C forces the exit)');
    } else {
      log().error({ signal }, 'forced exit during shutdown');
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  await stopRequested;
  try {
    await gateway.close();
    log().info('stopped');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return EXIT_OK;
}

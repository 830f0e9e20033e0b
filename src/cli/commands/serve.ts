/**
 * `skillgate serve` — start the gateway and run until SIGINT/SIGTERM.
 */
import { loadSettings } from '../../config/settings.ts';
import { ListenError, startGateway } from '../../gateway.ts';
import { log } from '../../log/logger.ts';
import { DataDirBusyError } from '../../store/datadir.ts';
import { CliError, EXIT_FAILED, EXIT_OK, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configErrorsAsRefusalAsync } from '../settings.ts';

/** Signals closer than this are one key press (npm relays the terminal's Ctrl-C), ms. */
const SAME_PRESS_MS = 1000;
/** How long a stopped process may linger on work that ignored its abort before it exits, ms. */
const EXIT_LINGER_MS = 1000;

/** Start the gateway; resolves with exit code 0 after a clean shutdown. */
export async function serveCommand(_io: CliIO): Promise<number> {
  const settings = configErrorsAsRefusal(() => loadSettings());
  let gateway;
  try {
    gateway = await configErrorsAsRefusalAsync(() => startGateway(settings, log()));
  } catch (err) {
    if (err instanceof DataDirBusyError || err instanceof ListenError) throw new CliError(err.message, EXIT_FAILED);
    throw err;
  }
  // HTTP skills address this gateway as `${PORT}` (skills/examples/gateway_health): the port
  // actually bound (PORT=0 picks a free one, and .env values are not in process.env).
  process.env.PORT = String(gateway.port);
  // A stop is bounded (docs/recovery.md): the first SIGINT/SIGTERM stops accepting and waits at
  // most SKILLGATE_SHUTDOWN_GRACE_SEC for running turns; a second one forces the exit. A
  // terminal's Ctrl-C reaches node twice under `npm start` (directly, and relayed by npm), so
  // a signal within {@link SAME_PRESS_MS} of the previous one counts as the same press.
  let presses = 0;
  let lastAt = Number.NEGATIVE_INFINITY;
  let requested!: () => void;
  const stopRequested = new Promise<void>((resolve) => (requested = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    const at = Date.now();
    const samePress = at - lastAt < SAME_PRESS_MS;
    lastAt = at;
    if (samePress) {
      log().info({ signal }, 'the same stop request again (npm relays a Ctrl-C): still stopping');
      return;
    }
    presses++;
    if (presses === 1) {
      log().info(
        { signal, grace_sec: settings.shutdownGraceSec },
        `shutting down: waiting at most ${settings.shutdownGraceSec} s for running turns (a second Ctrl-C forces the exit)`,
      );
      requested();
    } else {
      log().error({ signal }, 'forced exit during shutdown; running turns are handled as after a crash at the next start');
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
  // A skill handler that ignores its abort signal must not keep a stopped gateway alive.
  setTimeout(() => process.exit(EXIT_OK), EXIT_LINGER_MS).unref();
  return EXIT_OK;
}

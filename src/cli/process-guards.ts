/**
 * Process-wide guards of the `skillgate` command: skill handlers run in process, and a
 * promise rejection nobody handles, or an exception thrown from a handler's timer, must not
 * take the gateway down with every other conversation. Both are logged (stderr) and the
 * process keeps running.
 */
import { log } from '../log/logger.ts';

let installed = false;

/** Install the guards once per process (called by bin/skillgate.js only). */
export function installProcessGuards(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    log().error({ err: reason }, 'unhandled promise rejection (likely from a skill handler); the gateway keeps running');
  });
  process.on('uncaughtException', (err) => {
    log().error({ err }, 'uncaught exception (likely from a skill handler timer); the gateway keeps running');
  });
}

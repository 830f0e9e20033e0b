/**
 * The intake (src/inbox/intake.ts) wired with the turn's parts: the text parsed once
 * (src/turn/input.ts), stops through {@link RunningTurns}, the 「没有正在运行的任务」 notice.
 */
import type { AdapterHost } from '../channel/types.ts';
import { createIntake, type NoticeSink } from '../inbox/intake.ts';
import type { Inbox } from '../inbox/types.ts';
import type { Logger } from '../log/logger.ts';
import type { Db } from '../store/db.ts';
import { parseTurnInput, type TurnInput } from './input.ts';
import { notice } from './notices.ts';
import type { RunningTurns } from './running.ts';

/** What {@link createCoreHost} needs. */
export interface CoreHostDeps {
  db: Db;
  log: Logger;
  inbox: Pick<Inbox<TurnInput>, 'receive' | 'processing'>;
  running: RunningTurns;
  outbox: NoticeSink;
  /** Observes every inbound event's result (metrics). */
  onInbound?(channel: string, result: 'accepted' | 'duplicate' | 'ignored'): void;
}

/** The AdapterHost of a gateway (see createIntake). */
export function createCoreHost(deps: CoreHostDeps): AdapterHost {
  return createIntake<TurnInput>({
    db: deps.db,
    log: deps.log,
    inbox: deps.inbox,
    outbox: deps.outbox,
    parse: parseTurnInput,
    isStop: (input) => input.kind === 'stop',
    stop: (chatKey) => deps.running.stop(deps.db, chatKey),
    replicas: deps.db.engine === 'server',
    nothingRunning: (lang) => notice(lang, 'nothing_running'),
    onInbound: deps.onInbound,
  });
}

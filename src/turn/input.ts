/**
 * The text of a message parsed once (docs/chat-authoring.md, the command grammar): what the
 * intake needs to recognise 「停止」 / `/stop`, and what the turn, the pending-reply router and
 * the command planner act on. Built at the intake and carried with the event; parsed again only
 * for an event read back from the database (after a restart or by another replica).
 */
import type { InboundMessage } from '../channel/types.ts';
import { parseCommand, type ParsedCommand } from './planners/command-parse.ts';

/** A message's text parsed: a command call, help, stop, confirm, cancel, invalid, or plain text (`none`). */
export type TurnInput = ParsedCommand;

/** The text addressed to the bot: the bot mention removed, trimmed. */
export function addressedText(msg: Pick<InboundMessage, 'input_without_bot_mention' | 'raw_input'>): string {
  return (msg.input_without_bot_mention ?? msg.raw_input ?? '').trim();
}

/** Parse a message's addressed text ({@link addressedText}). */
export function parseTurnInput(msg: Pick<InboundMessage, 'input_without_bot_mention' | 'raw_input'>): TurnInput {
  return parseCommand(addressedText(msg));
}

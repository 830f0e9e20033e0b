/**
 * Skill services as the test harnesses hold them: the one-shot shape of
 * src/wiring/skill-call.ts, writable so a test can plug messaging or a live skill set in
 * after the harness is built (each call of runSkill reads them then).
 */
import type { OneShotServices } from '../../src/wiring/skill-call.ts';

export type TestServices = { -readonly [K in keyof OneShotServices]: OneShotServices[K] };

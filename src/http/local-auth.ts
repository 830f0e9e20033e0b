/**
 * Guard of the local admin API (`/api/local/*`): the per-start token of `<data>/server.json`
 * as `Authorization: Bearer <token>`, compared in constant time (README.md "The skillgate command").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** Constant-time string equality (hashes first, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** Express middleware: 401 unless the bearer token equals `token`. */
export function requireBearer(token: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.get('authorization') ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (!m || !safeEqual(m[1]!.trim(), token)) {
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    next();
  };
}

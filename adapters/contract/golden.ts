/**
 * Golden-case checks: every `*.inbound.json` and `*.outbound.json` of the cases directory becomes
 * one test (adding a case = adding a file).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { measure } from '../../src/channel/index.ts';
import type { RecordedRequest } from './fake-server.ts';
import {
  inboundBody,
  loadInboundCases,
  loadOutboundCases,
  matchSubset,
  type ExpectedCall,
  type InboundCase,
  type ScriptedReply,
} from './cases.ts';
import { clearInbox, until, type Bed } from './harness.ts';
import type { AdapterContractOptions } from './types.ts';

/** The value at a dotted path of a request's body (JSON first, then form/multipart fields). */
export function bodyField(req: RecordedRequest, field: string): unknown {
  let v: unknown = req.json ?? req.fields;
  for (const k of field.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  if (v === undefined && req.fields[field] !== undefined) return req.fields[field];
  return v;
}

/** Body of a request as one object: JSON, or fields with JSON-looking values parsed. */
export function bodyObject(req: RecordedRequest): Record<string, unknown> {
  if (req.json && typeof req.json === 'object') return req.json as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.fields)) {
    try {
      out[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

/** Mismatches of one request against one expected call (empty = match). */
export function callMismatches(req: RecordedRequest, exp: ExpectedCall, caseFile: string): string[] {
  if (exp.method && exp.method.toUpperCase() !== req.method.toUpperCase()) return [`method ${req.method}`];
  if (!new RegExp(exp.path).test(req.path)) return [`path ${req.path}`];
  const out: string[] = [];
  if (exp.body) out.push(...matchSubset(bodyObject(req), exp.body, 'body'));
  if (exp.query) out.push(...matchSubset(req.query, exp.query, 'query'));
  for (const f of exp.files ?? []) {
    const part = req.parts.find((p) => p.filename === f.filename && (f.name === undefined || p.name === f.name));
    if (!part) {
      out.push(`no file part named ${JSON.stringify(f.filename)} (got ${JSON.stringify(req.parts.map((p) => p.filename))})`);
      continue;
    }
    if (f.bytes_of && !part.data.equals(readFileSync(resolve(dirname(caseFile), f.bytes_of)))) out.push(`bytes of ${f.filename} differ`);
  }
  return out;
}

/** Assert `expected` calls appear in order among `requests`; returns the problems. */
export function orderedCallProblems(requests: RecordedRequest[], expected: ExpectedCall[], caseFile: string): string[] {
  let from = 0;
  for (const [i, exp] of expected.entries()) {
    let found = -1;
    const near: string[] = [];
    for (let j = from; j < requests.length; j++) {
      const m = callMismatches(requests[j]!, exp, caseFile);
      if (m.length === 0) {
        found = j;
        break;
      }
      if (new RegExp(exp.path).test(requests[j]!.path)) near.push(`#${j} ${requests[j]!.path}: ${m.join('; ')}`);
    }
    if (found < 0) return [`call ${i} (${exp.path}) not found after request #${from}; candidates: ${near.join(' | ') || 'none'}`];
    from = found + 1;
  }
  return [];
}

function installScripts(bed: Bed, scripts: ScriptedReply[] | undefined): void {
  for (const s of scripts ?? []) bed.fake.script(s.method ?? '*', new RegExp(s.path), s.reply, s.times ?? 1);
}

async function runInbound(bed: Bed, c: InboundCase, all: Map<string, InboundCase>): Promise<void> {
  for (const name of c.after ?? []) {
    const prior = all.get(name);
    if (!prior) throw new Error(`${c.name}: unknown case in "after": ${name}`);
    await deliverCase(bed, prior);
  }
  const before = bed.host.calls.length;
  bed.fake.reset();
  installScripts(bed, c.fake);
  const res = await deliverCase(bed, c);
  const exp = c.expected;
  const calls = bed.host.calls.slice(before);
  const accepted = calls.filter((x) => x.result === 'accepted').map((x) => x.msg);
  const status = exp.status ?? (exp.action === 'reject' ? undefined : 200);
  if (status === undefined) throw new Error(`${c.name}: a reject case needs expected.status`);
  expect(res.status, `${c.name}: HTTP status`).toBe(status);
  switch (exp.action) {
    case 'process':
    case 'process_as_edit':
    case 'process_callback': {
      expect(accepted, `${c.name}: exactly one accepted message`).toHaveLength(1);
      const kind = exp.action === 'process' ? 'message' : exp.action === 'process_as_edit' ? 'edit' : 'callback';
      expect(accepted[0]!.kind, `${c.name}: kind`).toBe(kind);
      expect(matchSubset(accepted[0], exp.message ?? {}, 'message'), `${c.name}: normalized message`).toEqual([]);
      break;
    }
    case 'drop_duplicate':
      expect(accepted, `${c.name}: a redelivery is not accepted again`).toHaveLength(0);
      break;
    case 'ignore':
      expect(
        accepted.filter((m) => m.addressed_to_bot),
        `${c.name}: nothing addressed to the bot`,
      ).toHaveLength(0);
      break;
    case 'unsupported':
      expect(accepted, `${c.name}: unsupported content is not handed to the core`).toHaveLength(0);
      break;
    case 'respond_challenge':
      expect(accepted).toHaveLength(0);
      break;
    case 'reject':
      expect(calls, `${c.name}: nothing reaches the host`).toHaveLength(0);
      expect(bed.fake.requests, `${c.name}: no platform call for a refused request`).toHaveLength(0);
      break;
  }
  if (exp.response_body !== undefined) {
    if (typeof exp.response_body === 'string') expect(res.body).toBe(exp.response_body);
    else expect(matchSubset(res.body, exp.response_body, 'response')).toEqual([]);
  }
  if (exp.calls?.length) {
    let problems: string[] = [];
    await until(
      () => (problems = orderedCallProblems(bed.fake.requests, exp.calls!, c.file)).length === 0,
      `${c.name}: platform calls`,
    ).catch(() => undefined);
    expect(problems, `${c.name}: platform calls`).toEqual([]);
  }
}

async function deliverCase(bed: Bed, c: InboundCase) {
  if (c.now) bed.clock.set(c.now);
  return bed.deliver(inboundBody(c), { signed: c.sign !== false, method: c.method, path: c.path, headers: c.headers, query: c.query });
}

/** Register one test per golden case. */
export function registerGoldenCases(opts: AdapterContractOptions, bed: () => Bed): void {
  const inbound = loadInboundCases(opts.casesDir);
  const byName = new Map(inbound.map((c) => [c.name, c]));
  for (const c of inbound) {
    it(`inbound golden case ${c.name}: ${c.expected.action}${c.description ? ` — ${c.description}` : ''}`, async () => {
      const b = bed();
      await clearInbox(b.db);
      b.clock.set(opts.startTime ?? '2026-01-01T00:00:00Z');
      await runInbound(b, c, byName);
    });
  }
  for (const c of loadOutboundCases(opts.casesDir)) {
    it(`outbound golden case ${c.name}${c.description ? ` — ${c.description}` : ''}`, async () => {
      const b = bed();
      b.fake.reset();
      installScripts(b, c.fake);
      const res = await b.adapter.send({ ...opts.outbound.target, ...(c.target ?? {}) }, c.message);
      const exp = c.expected;
      expect(res.ok, `${c.name}: ok (${res.ok ? '' : res.error})`).toBe(exp.ok ?? true);
      if (!res.ok && exp.retryable !== undefined) expect(res.retryable).toBe(exp.retryable);
      if (exp.calls) expect(orderedCallProblems(b.fake.requests, exp.calls, c.file)).toEqual([]);
      for (const [path, n] of Object.entries(exp.count ?? {})) {
        expect(b.fake.calls(new RegExp(path)).length, `${c.name}: count of ${path}`).toBe(n);
      }
      if (exp.chunks) {
        const ch = exp.chunks;
        const texts = b.fake.calls(new RegExp(ch.path)).map((r) => bodyField(r, ch.field));
        expect(texts.length).toBeGreaterThanOrEqual(ch.min_count ?? 1);
        for (const t of texts) {
          expect(typeof t).toBe('string');
          const s = t as string;
          expect(s.trim().length, 'no empty chunk').toBeGreaterThan(0);
          expect(measure(s, ch.unit), 'chunk within the limit').toBeLessThanOrEqual(ch.max);
          expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s), 'no lone surrogate').toBe(false);
          for (const e of ch.each_contains ?? []) expect(s).toContain(e);
          const wf = opts.outbound.wellFormed?.(s);
          expect(wf ?? null, 'chunk well-formed').toBeNull();
        }
        const all = (texts as string[]).join('');
        for (const e of ch.contains ?? []) expect(all).toContain(e);
        for (const e of ch.intact ?? []) {
          const occurrences = (texts as string[]).reduce((n, t) => n + t.split(e).length - 1, 0);
          expect(occurrences, `${JSON.stringify(e)} intact in one chunk`).toBe(1);
        }
      }
    });
  }
}

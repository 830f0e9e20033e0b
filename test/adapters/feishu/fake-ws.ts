/**
 * A loopback Feishu long-connection server for the real SDK `WSClient` (node-sdk 1.74): endpoint
 * discovery `POST /callback/ws/endpoint` (`{code:0, data:{URL, ClientConfig}}`) on the Open API
 * fake, then a WebSocket speaking the SDK's protobuf frames (`pbbp2.Frame`: SeqID, LogID,
 * service, method, headers, payload; method 1 = data, header `type: event`). As Feishu does,
 * each event goes to **one random open connection** of the app; an event not answered with
 * `{code: 200}` (no answer within 3 s, an error code, or the connection closed) is delivered
 * again. Counted: connections open at once beyond the first (`overlaps`).
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FakePlatform } from '../../../adapters/contract/index.ts';

// --- the few protobuf bits pbbp2.Frame needs -------------------------------------------------

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const bytesField = (field: number, data: Uint8Array) => [...tag(field, 2), ...varint(data.length), ...data];
const strField = (field: number, s: string) => bytesField(field, Buffer.from(s, 'utf8'));

/** One frame. */
export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: Array<{ key: string; value: string }>;
  payload: Buffer;
}

export function encodeFrame(f: Frame): Buffer {
  const out: number[] = [
    ...tag(1, 0),
    ...varint(f.SeqID),
    ...tag(2, 0),
    ...varint(f.LogID),
    ...tag(3, 0),
    ...varint(f.service),
    ...tag(4, 0),
    ...varint(f.method),
  ];
  for (const h of f.headers) out.push(...bytesField(5, Buffer.from([...strField(1, h.key), ...strField(2, h.value)])));
  out.push(...bytesField(8, f.payload));
  return Buffer.from(out);
}

function readFields(buf: Buffer): Array<{ field: number; value: bigint | Buffer }> {
  const out: Array<{ field: number; value: bigint | Buffer }> = [];
  let i = 0;
  const readVarint = (): bigint => {
    let shift = 0n;
    let v = 0n;
    for (;;) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(readVarint());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ field, value: readVarint() });
    else if (wire === 2) {
      const len = Number(readVarint());
      out.push({ field, value: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

export function decodeFrame(buf: Buffer): Frame {
  const f: Frame = { SeqID: 0, LogID: 0, service: 0, method: 0, headers: [], payload: Buffer.alloc(0) };
  for (const { field, value } of readFields(buf)) {
    if (field === 1) f.SeqID = Number(value);
    else if (field === 2) f.LogID = Number(value);
    else if (field === 3) f.service = Number(value);
    else if (field === 4) f.method = Number(value);
    else if (field === 5) {
      const h = { key: '', value: '' };
      for (const x of readFields(value as Buffer))
        x.field === 1 ? (h.key = (x.value as Buffer).toString('utf8')) : (h.value = (x.value as Buffer).toString('utf8'));
      f.headers.push(h);
    } else if (field === 8) f.payload = Buffer.from(value as Buffer);
  }
  return f;
}

// --- the server --------------------------------------------------------------------------

/** The running long-connection fake. */
export interface FakeFeishuWs {
  /** Queue a p2p text message from `openId`; @returns its message id. */
  push(openId: string, text: string): string;
  /** Connections open now. */
  open(): number;
  /** Times a connection opened while another was open. */
  overlaps(): number;
  /** When each connection opened (ms since the epoch). */
  connectedAt(): number[];
  /** Event ids answered with code 200. */
  acked(): string[];
  close(): Promise<void>;
}

const SERVICE_ID = 7;

/** Start the WebSocket server and install the endpoint route on `api` (the Open API fake). */
export async function startFakeFeishuWs(api: FakePlatform, appId: string): Promise<FakeFeishuWs> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as AddressInfo).port;
  api.route('POST', '/callback/ws/endpoint', (req) => {
    const body = req.json as { AppID?: string } | undefined;
    if (body?.AppID !== appId) return { json: { code: 1000040345, msg: 'app not found' } };
    return {
      json: {
        code: 0,
        msg: 'ok',
        data: {
          URL: `ws://127.0.0.1:${port}/ws/v2?fpid=1&device_id=dev&service_id=${SERVICE_ID}`,
          ClientConfig: { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 },
        },
      },
    };
  });

  const sockets = new Set<WebSocket>();
  const connected: number[] = [];
  let overlaps = 0;
  let seq = 0;
  let nextMessage = 1;
  /** Events not yet answered with 200, by event id. */
  const unacked = new Map<string, { payload: Buffer; on: WebSocket | null; timer?: NodeJS.Timeout }>();
  const acked: string[] = [];

  const deliver = (id: string): void => {
    const ev = unacked.get(id);
    if (!ev || ev.on) return;
    const open = [...sockets].filter((s) => s.readyState === s.OPEN);
    if (open.length === 0) return; // waits for a connection
    const to = open[Math.floor(Math.random() * open.length)]!;
    ev.on = to;
    to.send(
      encodeFrame({
        SeqID: ++seq,
        LogID: seq,
        service: SERVICE_ID,
        method: 1,
        headers: [
          { key: 'type', value: 'event' },
          { key: 'message_id', value: id },
          { key: 'sum', value: '1' },
          { key: 'seq', value: '0' },
          { key: 'trace_id', value: `trace-${seq}` },
        ],
        payload: ev.payload,
      }),
    );
    ev.timer = setTimeout(() => retry(id), 3000);
  };
  const retry = (id: string): void => {
    const ev = unacked.get(id);
    if (!ev) return;
    clearTimeout(ev.timer);
    ev.on = null;
    setTimeout(() => deliver(id), 200);
  };

  wss.on('connection', (ws) => {
    if ([...sockets].some((s) => s.readyState === s.OPEN)) overlaps++;
    sockets.add(ws);
    connected.push(Date.now());
    ws.on('message', (data: Buffer) => {
      const f = decodeFrame(Buffer.from(data));
      if (f.method !== 1) return; // control frames (ping)
      const id = f.headers.find((h) => h.key === 'message_id')?.value ?? '';
      const ev = unacked.get(id);
      if (!ev || ev.on !== ws) return;
      const code = (JSON.parse(f.payload.toString('utf8') || '{}') as { code?: number }).code;
      if (code === 200) {
        clearTimeout(ev.timer);
        unacked.delete(id);
        acked.push(id);
      } else retry(id);
    });
    ws.on('close', () => {
      sockets.delete(ws);
      for (const [id, ev] of unacked) if (ev.on === ws) retry(id);
    });
    ws.on('error', () => undefined);
    for (const id of unacked.keys()) deliver(id);
  });

  return {
    push(openId, text) {
      const n = nextMessage++;
      const eventId = `ev_ws_${n}`;
      const messageId = `om_ws_${n}`;
      const now = String(Date.now());
      const payload = {
        schema: '2.0',
        header: {
          event_id: eventId,
          event_type: 'im.message.receive_v1',
          create_time: now,
          token: '',
          app_id: appId,
          tenant_key: 'tenant_ws',
        },
        event: {
          sender: { sender_id: { open_id: openId, union_id: `on_${openId}`, user_id: null }, sender_type: 'user', tenant_key: 'tenant_ws' },
          message: {
            message_id: messageId,
            create_time: now,
            chat_id: `oc_p2p_${openId}`,
            chat_type: 'p2p',
            message_type: 'text',
            content: JSON.stringify({ text }),
          },
        },
      };
      unacked.set(eventId, { payload: Buffer.from(JSON.stringify(payload)), on: null });
      deliver(eventId);
      return messageId;
    },
    open: () => [...sockets].filter((s) => s.readyState === s.OPEN).length,
    overlaps: () => overlaps,
    connectedAt: () => [...connected],
    acked: () => [...acked],
    async close() {
      for (const ev of unacked.values()) clearTimeout(ev.timer);
      for (const s of sockets) s.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}

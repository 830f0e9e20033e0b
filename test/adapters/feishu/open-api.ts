/**
 * The Feishu Open API routes on the contract kit's loopback fake (`FakePlatform`), speaking the
 * real wire format (`{code, msg, data}`, multipart uploads) for the real SDK `Client`.
 * Documented behaviours reproduced: the tenant token endpoint; `uuid` idempotency on send/reply
 * (a repeated uuid returns the first message and sends nothing); replying to a withdrawn
 * message → HTTP 400 `{code: 230011}`; a card with more than 4 markdown tables → HTTP 400
 * `{code: 230099, msg: "… ErrCode: 11310; ErrMsg: card table number over limit …"}`.
 */
import type { FakePlatform, FakeReply, RecordedRequest } from '../../../adapters/contract/index.ts';
import { SECRETS } from './helpers.ts';

/** What the routes remember (tests may add withdrawn message ids). */
export interface OpenApiState {
  /** Message ids whose reply answers 230011. */
  withdrawn: Set<string>;
  /** uuid → message id of the first delivery. */
  uuids: Map<string, string>;
}

/** GFM tables in card markdown (a header row followed by a rule row), outside code fences. */
export function countMdTables(md: string): number {
  let n = 0;
  let fence: number | null = null;
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const f = /^ {0,3}(`{3,})([^`]*)$/.exec(lines[i]!);
    if (f) {
      if (fence === null) fence = f[1]!.length;
      else if (f[2]!.trim() === '' && f[1]!.length >= fence) fence = null;
      continue;
    }
    if (fence === null && /^\s*\|.*\|\s*$/.test(lines[i]!) && /^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[i + 1] ?? '')) n++;
  }
  return n;
}

/** The parsed `content` of a send/reply request (null when not one). */
export function contentOf(req: RecordedRequest): { msg_type: string; content: Record<string, unknown>; uuid: string | null } | null {
  const body = req.json as { msg_type?: string; content?: string; uuid?: string } | undefined;
  if (!body || typeof body.content !== 'string') return null;
  return { msg_type: String(body.msg_type ?? ''), content: JSON.parse(body.content) as Record<string, unknown>, uuid: body.uuid ?? null };
}

/** The markdown of a card's markdown components, joined. */
export function cardMarkdown(content: Record<string, unknown>): string {
  const elements = ((content.body as { elements?: unknown[] } | undefined)?.elements ?? []) as { tag?: string; content?: string }[];
  return elements
    .filter((e) => e.tag === 'markdown')
    .map((e) => e.content ?? '')
    .join('\n');
}

/** Install the routes; returns the state. */
export function installOpenApi(fake: FakePlatform): OpenApiState {
  const state: OpenApiState = { withdrawn: new Set(), uuids: new Map() };
  let n = 0;
  fake.route('POST', '/open-apis/auth/v3/tenant_access_token/internal', {
    json: { code: 0, msg: 'ok', tenant_access_token: 't-kit', expire: 7200 },
  });
  fake.route('GET', '/open-apis/bot/v3/info', {
    json: { code: 0, msg: 'ok', bot: { open_id: SECRETS.bot_open_id, app_name: 'Test Gateway Bot' } },
  });
  fake.route('GET', '/open-apis/contact/v3/users/:id', (r) => {
    const name = SECRETS.directory[r.params.id!];
    return name
      ? { json: { code: 0, msg: 'success', data: { user: { open_id: r.params.id, name } } } }
      : { status: 400, json: { code: 41050, msg: 'no user authority error' } };
  });
  fake.route('GET', '/open-apis/im/v1/chats/:id', (r) => ({
    json: { code: 0, msg: 'success', data: { chat_mode: r.params.id!.includes('p2p') ? 'p2p' : 'group' } },
  }));
  const send = (r: RecordedRequest): FakeReply => {
    const c = contentOf(r);
    if (!c) return { status: 400, json: { code: 230001, msg: 'Your request contains an invalid request parameter, ext=invalid content.' } };
    if (r.params.id && state.withdrawn.has(r.params.id)) return { status: 400, json: { code: 230011, msg: 'The message was withdrawn.' } };
    if (c.msg_type === 'interactive' && countMdTables(cardMarkdown(c.content)) > 4) {
      return {
        status: 400,
        json: {
          code: 230099,
          msg: 'Failed to create card content, ext=ErrCode: 11310; ErrMsg: card table number over limit; ErrorValue: table; ',
        },
      };
    }
    if (c.uuid && state.uuids.has(c.uuid)) return { json: { code: 0, msg: 'success', data: { message_id: state.uuids.get(c.uuid) } } };
    const id = `om_kit_${++n}`;
    if (c.uuid) state.uuids.set(c.uuid, id);
    return { json: { code: 0, msg: 'success', data: { message_id: id, msg_type: c.msg_type } } };
  };
  fake.route('POST', '/open-apis/im/v1/messages', send);
  fake.route('POST', '/open-apis/im/v1/messages/:id/reply', send);
  fake.route('POST', '/open-apis/im/v1/images', () => ({ json: { code: 0, msg: 'success', data: { image_key: `img_kit_${++n}` } } }));
  fake.route('POST', '/open-apis/im/v1/files', () => ({ json: { code: 0, msg: 'success', data: { file_key: `file_kit_${++n}` } } }));
  fake.route('GET', '/open-apis/im/v1/messages/om_doc_merge_0001', {
    json: {
      code: 0,
      msg: 'success',
      data: {
        items: [
          { message_id: 'om_doc_merge_0001', msg_type: 'merge_forward', body: { content: '{"content":"Merged and Forwarded Message"}' } },
          {
            message_id: 'om_doc_merge_child_1',
            upper_message_id: 'om_doc_merge_0001',
            msg_type: 'text',
            body: { content: '{"text":"第一条"}' },
          },
          {
            message_id: 'om_doc_merge_child_2',
            upper_message_id: 'om_doc_merge_0001',
            msg_type: 'text',
            body: { content: '{"text":"第二条"}' },
          },
          {
            message_id: 'om_doc_merge_child_3',
            upper_message_id: 'om_doc_merge_0001',
            msg_type: 'file',
            body: { content: '{"file_key":"file_v3_doc_merge_3","file_name":"记录.xlsx"}' },
          },
        ],
      },
    },
  });
  return state;
}

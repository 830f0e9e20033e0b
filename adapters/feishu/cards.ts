/**
 * Message bodies the adapter sends (open.feishu.cn "Message content description", card JSON 2.0
 * "markdown" and "button" components). `content` is always a JSON string inside the request.
 */
import type { OutboundConfirm } from '../../src/channel/index.ts';

/** One message to send: the API's `msg_type` and the (unserialized) content object. */
export interface FeishuBody {
  msg_type: 'text' | 'post' | 'interactive' | 'image' | 'file' | 'audio' | 'media';
  content: Record<string, unknown>;
}

/** A plain text message. */
export function textBody(text: string): FeishuBody {
  return { msg_type: 'text', content: { text } };
}

const BUTTON_TYPE = { danger: 'danger', primary: 'primary', secondary: 'default' } as const;

/**
 * A card (JSON 2.0) with one markdown component and, for a confirmation request, one button per
 * option whose callback value is `{action, confirm_token}` (arrives as `card.action.trigger`).
 */
export function cardBody(markdown: string, confirm?: OutboundConfirm | null): FeishuBody {
  const elements: Record<string, unknown>[] = [];
  if (markdown !== '') elements.push({ tag: 'markdown', content: markdown });
  if (confirm) {
    elements.push({
      tag: 'column_set',
      columns: confirm.options.map((o) => ({
        tag: 'column',
        width: 'auto',
        elements: [
          {
            tag: 'button',
            text: { tag: 'plain_text', content: o.label },
            type: BUTTON_TYPE[o.style ?? 'secondary'] ?? 'default',
            behaviors: [{ type: 'callback', value: { action: o.id, confirm_token: confirm.token } }],
          },
        ],
      })),
    });
  }
  return { msg_type: 'interactive', content: { schema: '2.0', config: { update_multi: true }, body: { elements } } };
}

/** Bytes of the serialized request `content` field as sent (a JSON string in the JSON body). */
export function bodyBytes(b: FeishuBody): number {
  return Buffer.byteLength(JSON.stringify(JSON.stringify(b.content)), 'utf8');
}

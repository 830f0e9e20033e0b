/**
 * Downloading what users sent (`GET /open-apis/im/v1/messages/:message_id/resources/:file_key
 * ?type=image|file`, ≤ 100 MB; outbound-expectations.md §3) and decoding the file name of the
 * answer's `Content-Disposition`:
 * - RFC 6266 / RFC 5987 `filename*=UTF-8''%E6%8A%A5...` wins;
 * - a plain `filename="报修单.pdf"` arrives as raw UTF-8 bytes, which Node's HTTP parser hands
 *   over as latin1 characters: they are re-read as UTF-8 when that is valid, else kept.
 */
import type * as lark from '@larksuiteoapi/node-sdk';
import { dispositionFilename, type FetchedAttachment, type InboundAttachment } from '../../src/channel/index.ts';
import { errorResult } from './api.ts';

/** Largest resource downloaded, bytes (the API's limit). */
export const RESOURCE_LIMIT = 100 * 1024 * 1024;

export { dispositionFilename } from '../../src/channel/index.ts';

/**
 * Fetch an inbound attachment's bytes via `im.messageResource.get`.
 * @throws Error when the platform refuses or the body is larger than {@link RESOURCE_LIMIT}
 */
export async function fetchResource(client: lark.Client, att: InboundAttachment): Promise<FetchedAttachment> {
  const ref = att.platform_ref;
  const messageId = typeof ref.message_id === 'string' ? ref.message_id : '';
  const fileKey = typeof ref.file_key === 'string' ? ref.file_key : '';
  const type = ref.resource_type === 'image' ? 'image' : 'file';
  if (!messageId || !fileKey) throw new Error('feishu attachment without message_id/file_key');
  let res: { getReadableStream(): NodeJS.ReadableStream; headers?: Record<string, unknown> };
  try {
    res = (await client.im.messageResource.get({ path: { message_id: messageId, file_key: fileKey }, params: { type } })) as typeof res;
  } catch (err) {
    const r = errorResult(err);
    throw new Error(`feishu resource ${fileKey}: ${r.code ?? r.status ?? 'network'} ${r.msg}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.getReadableStream() as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += b.length;
    if (total > RESOURCE_LIMIT) throw new Error(`feishu resource ${fileKey}: larger than 100 MB`);
    chunks.push(b);
  }
  const headers = res.headers ?? {};
  const ctype = typeof headers['content-type'] === 'string' ? (headers['content-type'] as string).split(';')[0]!.trim() : null;
  const filename = dispositionFilename(
    typeof headers['content-disposition'] === 'string' ? (headers['content-disposition'] as string) : null,
  );
  return { data: Buffer.concat(chunks), filename: att.filename ?? filename, mime_type: ctype || null };
}

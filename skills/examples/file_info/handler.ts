/**
 * Example in-process skill: facts about one uploaded file. The platform has already turned
 * `file` (a reference id such as `file_1`, or a file name) into a path inside the session
 * workspace (R-FILE-03, R-FILE-06).
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';

const TEXT_EXT = new Set(['.txt', '.md', '.csv', '.json', '.log', '.yaml', '.yml', '.xml', '.html']);

export async function execute(input_data: { file?: string }, runtime_context: { actor_name?: string }): Promise<Record<string, unknown>> {
  const path = typeof input_data.file === 'string' ? input_data.file : '';
  let info;
  try {
    info = await stat(path);
  } catch {
    return {
      success: false,
      error: `file not found: ${basename(path) || '(empty)'}`,
      error_type: 'recoverable',
      need_param: 'file',
      user_message: `找不到文件「${basename(path) || '（未填写）'}」。请先上传文件，再用材料编号（如 file_1）指代它。`,
    };
  }
  if (!info.isFile()) {
    return { success: false, error: 'not a file', error_type: 'recoverable', user_message: `「${basename(path)}」不是文件。` };
  }
  const data = await readFile(path);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const name = basename(path);
  const result: Record<string, unknown> = { filename: name, size_bytes: data.length, sha256 };
  let lines: string[] = [];
  if (TEXT_EXT.has(extname(name).toLowerCase())) {
    lines = data.toString('utf8').split(/\r?\n/).slice(0, 5);
    result.first_lines = lines;
  }
  const rows = [
    `| 项目 | 值 |`,
    `|---|---|`,
    `| 文件名 | ${name.replace(/\|/g, '\\|')} |`,
    `| 大小 | ${data.length} 字节 |`,
    `| SHA-256 | \`${sha256.slice(0, 16)}…\` |`,
  ];
  const preview = lines.length ? `\n\n前 ${lines.length} 行：\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`` : '';
  result.display_md = `**文件信息**\n\n${rows.join('\n')}${preview}`;
  return result;
}

/**
 * User-visible texts of artifact notes (`artifact_errors[].error`): zh-CN by default, en
 * available. Keys are stable; wording may change.
 */
import type { ArtifactLang } from './model.ts';

const TEXTS = {
  missing: { 'zh-CN': '声明的文件不存在，未登记为产物', en: 'the declared file does not exist; not registered' },
  outside: {
    'zh-CN': '声明的文件不在会话工作区内，未登记为产物',
    en: 'the declared file is outside the session workspace; not registered',
  },
  notFile: { 'zh-CN': '声明的路径不是普通文件，未登记为产物', en: 'the declared path is not a regular file; not registered' },
  refused: {
    'zh-CN': '拒绝下载：{host} 解析到内网/本机地址 {address}（可由 SKILLGATE_FETCH_ALLOW 放行）',
    en: 'download refused: {host} resolves to a private/loopback address {address} (allow it with SKILLGATE_FETCH_ALLOW)',
  },
  badScheme: { 'zh-CN': '拒绝下载：只支持 http/https 链接', en: 'download refused: only http/https links are fetched' },
  dns: { 'zh-CN': '下载失败：无法解析主机 {host}', en: 'download failed: cannot resolve host {host}' },
  tooLarge: {
    'zh-CN': '下载中止：文件超过单文件上限 {limit} 字节',
    en: 'download aborted: the file exceeds the per-file limit of {limit} bytes',
  },
  tooManyRedirects: { 'zh-CN': '下载失败：重定向次数过多', en: 'download failed: too many redirects' },
  status: { 'zh-CN': '下载失败：服务器返回 HTTP {status}', en: 'download failed: the server answered HTTP {status}' },
  network: { 'zh-CN': '下载失败：{detail}', en: 'download failed: {detail}' },
  registerFailed: { 'zh-CN': '产物登记失败：{detail}', en: 'artifact registration failed: {detail}' },
  tooMany: {
    'zh-CN': '链接过多：只下载了前 {limit} 个明确的下载链接',
    en: 'too many links: only the first {limit} explicit download links were fetched',
  },
} as const;

/** A message key of {@link text}. */
export type MessageKey = keyof typeof TEXTS;

/** The text of `key` in `lang`, with `{name}` placeholders filled from `vars`. */
export function text(key: MessageKey, lang: ArtifactLang = 'zh-CN', vars: Record<string, string | number> = {}): string {
  return TEXTS[key][lang].replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

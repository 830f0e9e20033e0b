/** Every tag in `html` with its attributes (the renderer tests: test/render/, test/adapters/telegram/). */
export function tags(html: string): { name: string; attrs: [string, string][] }[] {
  const out: { name: string; attrs: [string, string][] }[] = [];
  for (const m of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>/g)) {
    const attrs: [string, string][] = [];
    for (const a of m[2]!.matchAll(/([^\s=/]+)(?:="([^"]*)")?/g)) attrs.push([a[1]!.toLowerCase(), a[2] ?? '']);
    out.push({ name: m[1]!.toLowerCase(), attrs });
  }
  return out;
}

// Small DOM helpers shared by the console's section modules (docs/console.md "Writing a
// section"). Everything is inserted as text; markdown goes through DOMPurify (safeHtml).

/** Element with attributes (`data-testid`, `class`, `on<event>` handlers, other attributes) and children (nodes or text). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'value') node.value = v;
    else if (k === 'checked') node.checked = Boolean(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/**
 * A table: `columns` = [{title, cell(row) → node|text, class?}] (`class: 'nw'` keeps a short
 * column on one line), one `<tr data-testid=rowTestId>` per row.
 */
export function table(columns, rows, rowTestId) {
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { class: c.class }, c.title)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          { 'data-testid': rowTestId },
          columns.map((c) => h('td', { class: c.class }, c.cell(r))),
        ),
      ),
    ),
  );
}

/** A status line (`data-testid` given) whose text shows an outcome: `show(text, ok)`. */
export function statusLine(testid) {
  const p = h('p', { 'data-testid': testid, role: 'status', 'aria-live': 'polite' });
  return {
    node: p,
    show(text, ok = true) {
      p.textContent = text;
      p.className = ok ? 'ok' : 'error';
    },
    clear() {
      p.textContent = '';
      p.className = '';
    },
  };
}

/** Sanitized HTML into `node` (DOMPurify; plain text when it is missing). */
export function safeHtml(node, html) {
  const p = window.DOMPurify;
  if (!p) {
    node.textContent = html.replace(/<[^>]*>/g, '');
    return;
  }
  node.innerHTML = p.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style'],
  });
}

let timeFormat = null;

/** The zone `when` writes times in: the organisation's, from `GET /admin/api/session` (docs/results.md "Times"). */
export function setTimeZone(tz) {
  try {
    timeFormat = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz || undefined,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
  } catch {
    timeFormat = null;
  }
}

/** An instant as `YYYY-MM-DD HH:mm:ss` in the organisation's zone, as chats and the CLI write it (empty for null). */
export function when(v) {
  if (!v) return '';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  if (!timeFormat) setTimeZone(undefined);
  const p = {};
  for (const x of timeFormat.formatToParts(d)) p[x.type] = x.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

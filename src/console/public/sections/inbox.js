// Console section 'inbox': quarantined inbound events (a turn that kept failing), newest first,
// with the last error — retry (run again, attempts reset) or discard (kept as discarded) (docs/console.md).
import { h, statusLine, table, when } from '../ui.js';

export async function mount(container, api, t) {
  let status = 'failed';
  const counts = h('p', { class: 'muted', 'data-testid': 'inbox-counts' });
  const list = h('div');
  const result = statusLine('inbox-result');
  const tabs = h(
    'div',
    { class: 'row' },
    h(
      'button',
      {
        type: 'button',
        'data-testid': 'inbox-show-failed',
        onclick: () => {
          status = 'failed';
          void load();
        },
      },
      t('已隔离', 'Quarantined'),
    ),
    h(
      'button',
      {
        type: 'button',
        'data-testid': 'inbox-show-discarded',
        onclick: () => {
          status = 'discarded';
          void load();
        },
      },
      t('已丢弃', 'Discarded'),
    ),
    h(
      'button',
      {
        type: 'button',
        'data-testid': 'inbox-refresh',
        onclick: () => {
          void load();
        },
      },
      t('刷新', 'Refresh'),
    ),
  );

  async function act(id, what) {
    try {
      await api('inbox/' + encodeURIComponent(id) + '/' + what, { method: 'POST' });
      result.show(what === 'retry' ? t('已重新处理：', 'Queued again: ') + id : t('已丢弃：', 'Discarded: ') + id);
    } catch (err) {
      result.show(err.message, false);
    }
    await load();
  }

  async function load(before, append) {
    const data = await api('inbox?status=' + status + (before ? '&before=' + encodeURIComponent(before) : ''));
    const c = data.counts;
    counts.textContent =
      t('待处理 ', 'received ') +
      (c.received || 0) +
      ' · ' +
      t('处理中 ', 'processing ') +
      (c.processing || 0) +
      ' · ' +
      t('已隔离 ', 'quarantined ') +
      (c.failed || 0) +
      ' · ' +
      t('已丢弃 ', 'discarded ') +
      (c.discarded || 0) +
      ' · ' +
      t('超频拒绝 ', 'refused (flood) ') +
      (c.refused || 0);
    const rows = data.items;
    const tbl =
      rows.length === 0
        ? h('p', { class: 'muted', 'data-testid': 'inbox-empty' }, t('没有记录。', 'Nothing here.'))
        : table(
            [
              { title: 'ID', class: 'nw', cell: (r) => r.id },
              { title: t('会话', 'Chat'), cell: (r) => h('code', {}, r.chat_key) },
              { title: t('发送者', 'Sender'), class: 'nw', cell: (r) => r.sender },
              { title: t('内容', 'Message'), cell: (r) => r.preview },
              { title: t('尝试次数', 'Attempts'), class: 'nw', cell: (r) => String(r.attempts) },
              { title: t('错误', 'Error'), cell: (r) => h('span', { class: 'error' }, r.error || '') },
              { title: t('收到', 'Received'), class: 'nw', cell: (r) => when(r.received_at) },
              {
                title: '',
                class: 'nw',
                cell: (r) =>
                  r.status === 'failed'
                    ? h(
                        'span',
                        {},
                        h(
                          'button',
                          { type: 'button', 'data-testid': 'inbox-retry-' + r.id, onclick: () => act(r.id, 'retry') },
                          t('重试', 'Retry'),
                        ),
                        h(
                          'button',
                          { type: 'button', 'data-testid': 'inbox-discard-' + r.id, onclick: () => act(r.id, 'discard') },
                          t('丢弃', 'Discard'),
                        ),
                      )
                    : '',
              },
            ],
            rows,
            'inbox-row',
          );
    const more =
      rows.length >= 50 ? h('button', { type: 'button', onclick: () => load(rows[rows.length - 1].id, true) }, t('更多', 'More')) : '';
    if (append) list.append(tbl, more);
    else list.replaceChildren(tbl, more);
  }

  container.append(h('h2', {}, t('隔离的入站消息', 'Quarantined inbound events')), counts, tabs, result.node, list);
  await load();
}

// Console section 'outbox': failed deliveries, newest first, with the platform's error —
// retry (queued again, attempts reset) or discard (kept as discarded) (docs/console.md).
import { h, statusLine, table, when } from '../ui.js';

export async function mount(container, api, t) {
  let status = 'failed';
  const counts = h('p', { class: 'muted', 'data-testid': 'outbox-counts' });
  const list = h('div');
  const result = statusLine('outbox-result');
  const tabs = h(
    'div',
    { class: 'row' },
    h(
      'button',
      {
        type: 'button',
        'data-testid': 'outbox-show-failed',
        onclick: () => {
          status = 'failed';
          void load();
        },
      },
      t('发送失败', 'Failed'),
    ),
    h(
      'button',
      {
        type: 'button',
        'data-testid': 'outbox-show-discarded',
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
        'data-testid': 'outbox-refresh',
        onclick: () => {
          void load();
        },
      },
      t('刷新', 'Refresh'),
    ),
  );

  async function act(id, what) {
    try {
      await api('outbox/' + encodeURIComponent(id) + '/' + what, { method: 'POST' });
      result.show(what === 'retry' ? t('已重新排队：', 'Queued again: ') + id : t('已丢弃：', 'Discarded: ') + id);
    } catch (err) {
      result.show(err.message, false);
    }
    await load();
  }

  async function load(before, append) {
    const data = await api('outbox?status=' + status + (before ? '&before=' + encodeURIComponent(before) : ''));
    const c = data.counts;
    counts.textContent =
      t('排队 ', 'queued ') +
      (c.queued || 0) +
      ' · ' +
      t('发送中 ', 'sending ') +
      (c.sending || 0) +
      ' · ' +
      t('已发送 ', 'sent ') +
      (c.sent || 0) +
      ' · ' +
      t('失败 ', 'failed ') +
      (c.failed || 0) +
      ' · ' +
      t('已丢弃 ', 'discarded ') +
      (c.discarded || 0);
    const rows = data.items;
    const tbl =
      rows.length === 0
        ? h('p', { class: 'muted', 'data-testid': 'outbox-empty' }, t('没有记录。', 'Nothing here.'))
        : table(
            [
              { title: 'ID', class: 'nw', cell: (r) => r.id },
              { title: t('渠道', 'Channel'), class: 'nw', cell: (r) => r.channel + '@' + r.account },
              { title: t('会话', 'Chat'), cell: (r) => h('code', {}, r.chat_key) },
              { title: t('内容', 'Message'), cell: (r) => r.preview },
              { title: t('尝试次数', 'Attempts'), class: 'nw', cell: (r) => String(r.attempts) },
              {
                title: t('平台错误', 'Platform error'),
                cell: (r) => h('span', { class: 'error' }, (r.error_code ? '[' + r.error_code + '] ' : '') + (r.last_error || '')),
              },
              { title: t('时间', 'Created'), class: 'nw', cell: (r) => when(r.created_at) },
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
                          { type: 'button', 'data-testid': 'outbox-retry-' + r.id, onclick: () => act(r.id, 'retry') },
                          t('重试', 'Retry'),
                        ),
                        h(
                          'button',
                          { type: 'button', 'data-testid': 'outbox-discard-' + r.id, onclick: () => act(r.id, 'discard') },
                          t('丢弃', 'Discard'),
                        ),
                      )
                    : '',
              },
            ],
            rows,
            'outbox-row',
          );
    const more =
      rows.length >= 50 ? h('button', { type: 'button', onclick: () => load(rows[rows.length - 1].id, true) }, t('更多', 'More')) : '';
    if (append) list.append(tbl, more);
    else list.replaceChildren(tbl, more);
  }

  container.append(h('h2', {}, t('发送失败的消息', 'Failed deliveries')), counts, tabs, result.node, list);
  await load();
}

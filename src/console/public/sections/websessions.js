// Console section 'websessions': a contact's web chat sessions (revoke one or all) and a
// single-use sign-in link for them (docs/console.md "Web sessions").
import { h, statusLine, table, when } from '../ui.js';

export async function mount(container, api, t) {
  const input = h('input', {
    type: 'text',
    'data-testid': 'websessions-contact',
    placeholder: t('联系人键，如 li_si', 'contact key, e.g. li_si'),
  });
  const result = statusLine('websessions-result');
  const list = h('div');
  const linkBox = h('p', { 'data-testid': 'websessions-link' });
  let contact = '';

  async function load() {
    contact = input.value.trim();
    linkBox.textContent = '';
    if (!contact) {
      list.replaceChildren();
      return;
    }
    try {
      const data = await api('websessions?contact=' + encodeURIComponent(contact));
      const rows = data.sessions;
      list.replaceChildren(
        rows.length === 0
          ? h('p', { class: 'muted' }, t('没有网页会话。', 'No web sessions.'))
          : table(
              [
                { title: t('会话', 'Session'), class: 'nw', cell: (r) => h('code', {}, r.id.slice(0, 12)) },
                { title: t('创建', 'Created'), class: 'nw', cell: (r) => when(r.created_at) },
                { title: t('过期', 'Expires'), class: 'nw', cell: (r) => (r.expires_at ? when(r.expires_at) : t('不过期', 'never')) },
                {
                  title: t('状态', 'State'),
                  class: 'nw',
                  cell: (r) => (r.revoked_at ? t('已撤销 ', 'revoked ') + when(r.revoked_at) : t('有效', 'live')),
                },
                {
                  title: '',
                  class: 'nw',
                  cell: (r) =>
                    r.revoked_at
                      ? ''
                      : h(
                          'button',
                          { type: 'button', 'data-testid': 'websessions-revoke-' + r.id.slice(0, 12), onclick: () => revoke(r.id) },
                          t('撤销', 'Revoke'),
                        ),
                },
              ],
              rows,
              'websessions-row',
            ),
      );
    } catch (err) {
      result.show(err.message, false);
      list.replaceChildren();
    }
  }

  async function revoke(id) {
    try {
      const r = await api('websessions/revoke', { method: 'POST', body: id ? { contact, id } : { contact } });
      result.show(t('已撤销 ', 'Revoked ') + r.revoked);
    } catch (err) {
      result.show(err.message, false);
    }
    await load();
  }

  async function link() {
    try {
      const r = await api('websessions/link', { method: 'POST', body: { contact: input.value.trim() } });
      linkBox.textContent =
        t('一次性登录链接（只发给本人，有效至 ', 'Single-use sign-in link (give it to that person only; valid until ') +
        when(r.expires_at) +
        '): ' +
        r.url;
    } catch (err) {
      result.show(err.message, false);
    }
  }

  container.append(
    h('h2', {}, t('网页会话', 'Web sessions')),
    h(
      'div',
      { class: 'row' },
      input,
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'websessions-show',
          onclick: () => {
            void load();
          },
        },
        t('查看', 'Show'),
      ),
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'websessions-issue-link',
          onclick: () => {
            void link();
          },
        },
        t('发登录链接', 'Issue sign-in link'),
      ),
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'websessions-revoke-all',
          onclick: () => {
            void revoke();
          },
        },
        t('全部撤销', 'Revoke all'),
      ),
    ),
    result.node,
    linkBox,
    list,
  );
}

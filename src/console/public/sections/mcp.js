// Console section 'mcp' (docs/mcp.md "Tokens"): bearer tokens of /mcp, each bound to a contact and
// a role. A new token is shown once; the list shows ids only.
import { h, statusLine, table } from '../ui.js';

export async function mount(container, api, t) {
  const status = statusLine('mcp-status');
  const list = h('div', { 'data-testid': 'mcp-tokens' });
  const shown = h('pre', { 'data-testid': 'mcp-new-token', class: 'muted' });
  const contact = h('input', { 'data-testid': 'mcp-contact', placeholder: t('联系人 contact_key', 'Contact key') });
  const role = h('input', { 'data-testid': 'mcp-role', placeholder: t('角色（默认 default）', 'Role (default: default)') });

  async function load() {
    try {
      const res = await api('mcp/tokens');
      list.replaceChildren(
        res.tokens.length === 0
          ? h('p', { class: 'muted' }, t('还没有 MCP 令牌。', 'No MCP tokens yet.'))
          : table(
              [
                { title: 'ID', cell: (x) => x.tokenId },
                { title: t('角色', 'Role'), cell: (x) => x.roleId },
                { title: t('联系人', 'Contact'), cell: (x) => x.contactKey },
                { title: t('最近使用', 'Last used'), cell: (x) => x.lastUsedAt ?? '—' },
                { title: t('状态', 'State'), cell: (x) => (x.revokedAt ? t('已吊销', 'revoked') : t('有效', 'live')) },
                {
                  title: '',
                  cell: (x) =>
                    x.revokedAt
                      ? ''
                      : h(
                          'button',
                          { type: 'button', 'data-testid': 'mcp-revoke', onclick: () => void revoke(x.tokenId) },
                          t('吊销', 'Revoke'),
                        ),
                },
              ],
              res.tokens,
              'mcp-token',
            ),
      );
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function revoke(id) {
    if (!confirm(t(`吊销令牌 ${id}？`, `Revoke token ${id}?`))) return;
    try {
      await api('mcp/revoke', { method: 'POST', body: { token_id: id } });
      status.show(t('已吊销。', 'Revoked.'));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function issue() {
    try {
      const res = await api('mcp/tokens', {
        method: 'POST',
        body: { contact_key: contact.value.trim(), role: role.value.trim() || 'default' },
      });
      shown.textContent = t(`令牌（只显示这一次）：\n${res.token}`, `Token (shown once):\n${res.token}`);
      status.show(t(`已为 ${res.name} 签发 ${res.token_id}`, `Issued ${res.token_id} for ${res.name}`));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  container.append(
    h('h2', {}, t('MCP 令牌', 'MCP tokens')),
    h(
      'p',
      { class: 'muted' },
      t(
        '智能体（Claude Desktop、Cursor…）用令牌访问 /mcp，以该联系人的身份和角色调用技能。',
        'Agents (Claude Desktop, Cursor…) use a token at /mcp to call skills as that contact, in that role.',
      ),
    ),
    status.node,
    list,
    h('h3', {}, t('签发', 'Issue')),
    h('div', { class: 'row' }, contact, role),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'mcp-issue', onclick: () => void issue() }, t('签发', 'Issue')),
    ),
    shown,
  );
  await load();
}

// Console section 'secrets': skill parameters per role and skill. Secrets are write-only: the
// list shows 已设置 / 未设置, never a value (docs/console.md).
import { h, statusLine, table, when } from '../ui.js';

export async function mount(container, api, t) {
  const roles = await api('skills/roles');
  const roleSelect = h(
    'select',
    { 'data-testid': 'secrets-role', 'aria-label': t('角色', 'Role') },
    roles.map((r) => h('option', { value: r.id }, r.id)),
  );
  const skillSelect = h('select', { 'data-testid': 'secrets-skill', 'aria-label': t('技能', 'Skill') });
  const list = h('div', { 'data-testid': 'secrets-list' });
  const status = statusLine('param-result');
  const key = h('input', {
    type: 'text',
    'data-testid': 'param-key',
    placeholder: t('参数名，如 API_TOKEN', 'Name, e.g. API_TOKEN'),
    autocomplete: 'off',
  });
  const value = h('input', { type: 'password', 'data-testid': 'param-value', placeholder: t('值', 'Value'), autocomplete: 'new-password' });
  const save = h('button', { type: 'button', class: 'primary', 'data-testid': 'param-save' }, t('保存', 'Save'));

  async function loadSkills() {
    const data = await api('skills/roles/' + encodeURIComponent(roleSelect.value));
    const before = skillSelect.value;
    skillSelect.replaceChildren(...data.skills.map((s) => h('option', { value: s.skill }, s.skill)));
    if (data.skills.some((s) => s.skill === before)) skillSelect.value = before;
    await loadParams();
  }

  async function loadParams() {
    if (!skillSelect.value) {
      list.replaceChildren();
      return;
    }
    const path = 'secrets/' + encodeURIComponent(roleSelect.value) + '/' + encodeURIComponent(skillSelect.value);
    const data = await api(path);
    list.replaceChildren(
      data.params.length === 0
        ? h('p', { class: 'muted' }, t('没有参数。', 'No parameters.'))
        : table(
            [
              { title: t('参数', 'Name'), cell: (p) => h('code', {}, p.key) },
              {
                title: t('类型', 'Kind'),
                cell: (p) => (p.primary ? t('主凭证', 'main credential') : p.secret ? t('密钥', 'secret') : t('参数', 'parameter')),
              },
              {
                title: t('值', 'Value'),
                cell: (p) =>
                  h(
                    'span',
                    { 'data-testid': 'param-state-' + p.key },
                    p.secret
                      ? p.set
                        ? t('已设置', 'set')
                        : t('未设置', 'not set')
                      : p.value !== undefined
                        ? p.value
                        : t('未设置', 'not set'),
                  ),
              },
              { title: t('更新时间', 'Updated'), cell: (p) => when(p.updated_at) },
              {
                title: '',
                cell: (p) =>
                  h(
                    'span',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        'data-testid': 'param-edit-' + p.key,
                        onclick: () => {
                          key.value = p.key;
                          value.value = '';
                          value.type = p.secret ? 'password' : 'text';
                          value.focus();
                        },
                      },
                      p.set ? t('替换', 'Replace') : t('设置', 'Set'),
                    ),
                    p.set
                      ? h(
                          'button',
                          {
                            type: 'button',
                            'data-testid': 'param-delete-' + p.key,
                            onclick: async () => {
                              if (!confirm(t('删除参数 ', 'Delete parameter ') + p.key + '?')) return;
                              try {
                                await api(path + '/' + encodeURIComponent(p.key), { method: 'DELETE' });
                                status.show(t('已删除 ', 'Deleted ') + p.key);
                                await loadParams();
                              } catch (err) {
                                status.show(err.message, false);
                              }
                            },
                          },
                          t('删除', 'Delete'),
                        )
                      : '',
                  ),
              },
            ],
            data.params,
            'param-row',
          ),
    );
  }

  save.addEventListener('click', async () => {
    const k = key.value.trim();
    if (!k) return status.show(t('请填写参数名。', 'Enter a name.'), false);
    try {
      const res = await api(
        'secrets/' + encodeURIComponent(roleSelect.value) + '/' + encodeURIComponent(skillSelect.value) + '/' + encodeURIComponent(k),
        { method: 'PUT', body: { value: value.value } },
      );
      value.value = ''; // never kept on the page
      status.show(
        (res.secret ? t('密钥已保存（不会再显示）：', 'Secret saved (never shown again): ') : t('参数已保存：', 'Parameter saved: ')) +
          res.key,
      );
      await loadParams();
    } catch (err) {
      status.show(err.message, false);
    }
  });
  roleSelect.addEventListener('change', () => {
    status.clear();
    void loadSkills();
  });
  skillSelect.addEventListener('change', () => {
    status.clear();
    void loadParams();
  });
  container.append(
    h('h2', {}, t('参数与密钥', 'Parameters & secrets')),
    h('div', { class: 'row' }, h('label', {}, t('角色 ', 'Role '), roleSelect), h('label', {}, t('技能 ', 'Skill '), skillSelect)),
    list,
    h('h3', {}, t('设置或替换', 'Set or replace')),
    h('div', { class: 'row' }, key, value, save),
    status.node,
    h(
      'p',
      { class: 'muted' },
      t(
        '名称含 key/token/secret/password/credential/auth 的参数按密钥加密保存，保存后不再显示。',
        'Names containing key/token/secret/password/credential/auth are stored encrypted and never shown again.',
      ),
    ),
  );
  await loadSkills();
}

// Console section 'notify' (docs/console-sections.md "Notify targets"): the aliases of the notify skill.
// Apprise URLs hold credentials: they are write-only — the server answers and lists them masked,
// and the form is cleared after saving.
import { h, statusLine, table } from '../ui.js';

export async function mount(container, api, t) {
  const status = statusLine('notify-status');
  const list = h('div', { 'data-testid': 'notify-targets' });
  const name = h('input', { 'data-testid': 'notify-name', placeholder: t('别名，如 ops', 'Alias, e.g. ops') });
  const spec = h('textarea', {
    'data-testid': 'notify-spec',
    rows: 3,
    cols: 60,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: t(
      'Apprise URL（可多个，空格或换行分隔），或一个配置键 key[:tag]',
      'Apprise URLs (several: space or newline separated), or one config key key[:tag]',
    ),
  });

  async function load() {
    try {
      const res = await api('notify/targets');
      list.replaceChildren(
        res.targets.length === 0
          ? h('p', { class: 'muted' }, t('还没有通知目标。', 'No notify targets yet.'))
          : table(
              [
                { title: t('别名', 'Alias'), cell: (x) => x.name },
                { title: t('目标（已隐藏凭据）', 'Target (credentials hidden)'), cell: (x) => x.target },
                {
                  title: '',
                  cell: (x) =>
                    h(
                      'button',
                      { type: 'button', 'data-testid': 'notify-remove', onclick: () => void remove(x.name) },
                      t('删除', 'Remove'),
                    ),
                },
              ],
              res.targets,
              'notify-target',
            ),
      );
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function remove(alias) {
    if (!confirm(t(`删除通知目标「${alias}」？`, `Remove notify target "${alias}"?`))) return;
    try {
      await api('notify/targets/' + encodeURIComponent(alias), { method: 'DELETE' });
      status.show(t('已删除。', 'Removed.'));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function save() {
    try {
      const res = await api('notify/targets', { method: 'POST', body: { name: name.value.trim(), spec: spec.value } });
      spec.value = ''; // never kept on the page after saving
      name.value = '';
      status.show(t(`已保存：${res.name} → ${res.target}`, `Saved: ${res.name} → ${res.target}`));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  container.append(
    h('h2', {}, t('通知目标', 'Notify targets')),
    h(
      'p',
      { class: 'muted' },
      t(
        'notify 技能的 target 可以写别名。URL 中的凭据保存后不再显示；要修改请用同一别名重新保存。',
        "The notify skill's target may name an alias. Credentials in URLs are never shown after saving; save the alias again to change it.",
      ),
    ),
    status.node,
    list,
    h('h3', {}, t('新增或替换', 'Add or replace')),
    h('div', { class: 'row' }, name),
    h('div', { class: 'row' }, spec),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'notify-save', onclick: () => void save() }, t('保存', 'Save')),
    ),
  );
  await load();
}

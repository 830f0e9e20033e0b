// Console section 'skills': skills per role — enable/disable, SKILL.md and preflight problems,
// install a zip for a role or shared (docs/console.md).
import { h, statusLine, table } from '../ui.js';

const SOURCE = { builtin: ['内置', 'built-in'], shared: ['共享', 'shared'], market: ['市场', 'market'], role: ['角色自有', 'role'] };

export async function mount(container, api, t) {
  const roles = await api('skills/roles');
  const roleSelect = h(
    'select',
    { 'data-testid': 'skills-role', 'aria-label': t('角色', 'Role') },
    roles.map((r) => h('option', { value: r.id }, r.id + ' (' + r.org_id + ')')),
  );
  const list = h('div');
  const doc = h('div', { 'data-testid': 'skill-detail' });
  const status = statusLine('skills-status');

  const file = h('input', { type: 'file', accept: '.zip,application/zip', 'data-testid': 'skills-install-file' });
  const scope = h(
    'select',
    { 'data-testid': 'skills-install-scope' },
    h('option', { value: '' }, t('共享（所有角色可用）', 'Shared (every role)')),
    roles.map((r) => h('option', { value: r.id }, t('角色 ', 'Role ') + r.id)),
  );
  const installResult = statusLine('skills-install-result');
  const install = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      'data-testid': 'skills-install',
      onclick: async () => {
        const f = file.files?.[0];
        if (!f) return installResult.show(t('请选择一个 zip 技能包。', 'Choose a zip package.'), false);
        try {
          const blob = new Blob([await f.arrayBuffer()], { type: 'application/zip' });
          const q = new URLSearchParams({ filename: f.name });
          if (scope.value) q.set('role', scope.value);
          const res = await api('skills/install?' + q.toString(), { method: 'POST', body: blob });
          const warn = res.warnings?.length ? t('（警告 ', ' (warnings: ') + res.warnings.length + t('）', ')') : '';
          installResult.show(t('已安装 ', 'Installed ') + res.skill + warn, true);
          await load();
        } catch (err) {
          installResult.show(err.message, false);
        }
      },
    },
    t('安装', 'Install'),
  );

  // Notices (a defaulted version, version.default) are not problems, as in `skill check`.
  const noticesOf = (issues) => issues.filter((i) => i.severity === 'notice');
  const problemsOf = (issues) => issues.filter((i) => i.severity !== 'notice');

  async function showDetail(role, skill) {
    doc.replaceChildren(h('p', { class: 'muted' }, t('加载中…', 'Loading…')));
    try {
      const d = await api('skills/roles/' + encodeURIComponent(role) + '/skills/' + encodeURIComponent(skill));
      doc.replaceChildren(
        h('h3', {}, 'SKILL.md — ' + d.skill),
        problemsOf(d.issues).length
          ? h(
              'ul',
              { class: 'problems', 'data-testid': 'skill-problems' },
              problemsOf(d.issues).map((i) => h('li', { class: 'sev-' + i.severity }, i.severity + ' ' + i.code + ': ' + i.message)),
            )
          : h('p', { class: 'ok' }, t('预检无问题。', 'Preflight found no problems.')),
        noticesOf(d.issues).length
          ? h(
              'ul',
              { class: 'notices muted', 'data-testid': 'skill-notices' },
              noticesOf(d.issues).map((i) => h('li', { class: 'sev-notice' }, t('提示 ', 'notice ') + i.code + ': ' + i.message)),
            )
          : '',
        h(
          'pre',
          { class: 'doc', 'data-testid': 'skill-doc' },
          d.skill_md === null ? t('（没有 SKILL.md）', '(no SKILL.md)') : d.skill_md + (d.truncated ? '\n…' : ''),
        ),
      );
    } catch (err) {
      doc.replaceChildren(h('p', { class: 'error' }, err.message));
    }
  }

  async function load() {
    const role = roleSelect.value;
    const data = await api('skills/roles/' + encodeURIComponent(role));
    list.replaceChildren(
      data.live
        ? ''
        : h('p', { class: 'muted' }, t('此网关未启用技能生命周期，启用状态只读。', 'No live skill set: enablement is read-only.')),
      table(
        [
          {
            title: t('技能', 'Skill'),
            cell: (s) => h('span', {}, h('code', {}, s.skill), ' ', h('span', { class: 'muted' }, s.description || '')),
          },
          {
            title: t('来源', 'Source'),
            class: 'nw',
            cell: (s) => t(...(SOURCE[s.source] || [s.source, s.source])) + (s.owner_role ? ' · ' + s.owner_role : ''),
          },
          {
            title: t('状态', 'Status'),
            class: 'nw',
            cell: (s) =>
              s.status === 'ok' ? h('span', { class: 'ok' }, t('正常', 'ok')) : h('span', { class: 'error' }, t('损坏', 'broken')),
          },
          {
            title: t('启用', 'Enabled'),
            class: 'nw',
            cell: (s) =>
              h('input', {
                type: 'checkbox',
                checked: s.enabled,
                disabled: !data.live,
                'data-testid': 'skill-toggle-' + s.skill,
                'aria-label': s.skill,
                onchange: async (ev) => {
                  const on = ev.target.checked;
                  try {
                    await api('skills/roles/' + encodeURIComponent(role) + '/skills/' + encodeURIComponent(s.skill) + '/enabled', {
                      method: 'POST',
                      body: { enabled: on },
                    });
                    status.show(
                      (on ? t('已启用 ', 'Enabled ') : t('已停用 ', 'Disabled ')) + s.skill + t('（角色 ', ' (role ') + role + t('）', ')'),
                      true,
                    );
                  } catch (err) {
                    ev.target.checked = !on;
                    status.show(err.message, false);
                  }
                },
              }),
          },
          {
            title: t('问题', 'Problems'),
            cell: (s) =>
              problemsOf(s.issues).length
                ? h(
                    'ul',
                    { class: 'problems' },
                    problemsOf(s.issues).map((i) => h('li', { class: 'sev-' + i.severity }, i.code + ': ' + i.message)),
                  )
                : noticesOf(s.issues).length
                  ? h(
                      'span',
                      {
                        class: 'muted',
                        title: noticesOf(s.issues)
                          .map((i) => i.code + ': ' + i.message)
                          .join('\n'),
                      },
                      t('提示 ', 'notices ') + noticesOf(s.issues).length,
                    )
                  : '',
          },
          {
            title: '',
            class: 'nw',
            cell: (s) =>
              h(
                'button',
                { type: 'button', 'data-testid': 'skill-view-' + s.skill, onclick: () => showDetail(role, s.skill) },
                t('查看', 'View'),
              ),
          },
        ],
        data.skills,
        'skill-row',
      ),
    );
  }

  roleSelect.addEventListener('change', () => {
    status.clear();
    doc.replaceChildren();
    void load();
  });
  container.append(
    h('h2', {}, t('技能', 'Skills')),
    h('div', { class: 'row' }, h('label', {}, t('角色 ', 'Role '), roleSelect)),
    status.node,
    list,
    doc,
    h('h3', {}, t('安装技能包', 'Install a package')),
    h('div', { class: 'row' }, file, scope, install),
    installResult.node,
  );
  await load();
}

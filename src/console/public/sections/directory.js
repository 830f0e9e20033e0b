// Console section 'directory' (docs/console-sections.md "Directory"): contacts (search, paging; phone and
// e-mail shown to admins), the department tree, and a CSV/JSON import with a report per refused row.
import { h, statusLine, table } from '../ui.js';

const PAGE = 50;

export async function mount(container, api, t) {
  const state = { role: '', q: '', offset: 0 };
  const roleSel = h('select', {
    'data-testid': 'directory-role',
    onchange: () => {
      state.role = roleSel.value;
      state.offset = 0;
      void load();
    },
  });
  const q = h('input', {
    type: 'search',
    'data-testid': 'directory-search',
    placeholder: t('搜索：姓名、工号、部门、电话、邮箱', 'Search: name, emp no, department, phone, e-mail'),
  });
  const status = statusLine('directory-status');
  const list = h('div', { 'data-testid': 'directory-contacts' });
  const pager = h('div', { class: 'row' });
  const tree = h('ul', { 'data-testid': 'directory-departments' });
  const file = h('input', { type: 'file', accept: '.csv,.json,text/csv,application/json', 'data-testid': 'directory-file' });
  const report = h('div', { 'data-testid': 'directory-report' });

  const search = () => {
    state.q = q.value.trim();
    state.offset = 0;
    void load();
  };
  q.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') search();
  });

  async function load() {
    const qs = new URLSearchParams({ offset: String(state.offset), limit: String(PAGE) });
    if (state.role) qs.set('role', state.role);
    if (state.q) qs.set('q', state.q);
    try {
      const res = await api('directory/contacts?' + qs);
      if (roleSel.options.length === 0) {
        roleSel.replaceChildren(...res.roles.map((r) => h('option', { value: r }, r)));
        roleSel.value = res.role;
        state.role = res.role;
      }
      list.replaceChildren(
        table(
          [
            { title: t('联系人', 'Contact'), cell: (c) => c.contact_key },
            { title: t('姓名', 'Name'), cell: (c) => c.name + (c.is_admin ? t('（管理员）', ' (admin)') : '') },
            { title: t('工号', 'Emp no'), cell: (c) => c.emp_no },
            { title: t('部门', 'Department'), cell: (c) => c.department },
            { title: t('职位 / 职级', 'Position / title'), cell: (c) => [c.position, c.title].filter(Boolean).join(' / ') },
            { title: t('电话', 'Phone'), cell: (c) => c.phone },
            { title: t('邮箱', 'E-mail'), cell: (c) => c.email },
            { title: t('团队', 'Team'), cell: (c) => (c.team ? c.team + ' · ' + c.team_role : c.team_role) },
            {
              title: t('渠道 ID', 'Channel ids'),
              cell: (c) =>
                Object.entries(c.channel_ids)
                  .map(([ch, ids]) => ch + ': ' + ids.join(', '))
                  .join('; '),
            },
          ],
          res.contacts,
          'directory-contact',
        ),
      );
      const last = Math.min(res.total, res.offset + res.contacts.length);
      pager.replaceChildren(
        h(
          'span',
          { class: 'muted', 'data-testid': 'directory-count' },
          t(
            `共 ${res.total} 人，显示 ${res.total ? res.offset + 1 : 0}–${last}`,
            `${res.total} contacts, showing ${res.total ? res.offset + 1 : 0}–${last}`,
          ),
        ),
        h(
          'button',
          {
            type: 'button',
            disabled: res.offset === 0,
            onclick: () => {
              state.offset = Math.max(0, state.offset - PAGE);
              void load();
            },
          },
          t('上一页', 'Previous'),
        ),
        h(
          'button',
          {
            type: 'button',
            disabled: last >= res.total,
            onclick: () => {
              state.offset += PAGE;
              void load();
            },
          },
          t('下一页', 'Next'),
        ),
      );
      const deps = await api('directory/departments?' + new URLSearchParams({ role: state.role }));
      tree.replaceChildren(
        ...deps.departments.map((d) => {
          const depth = d.path.split('/').filter(Boolean).length - 1;
          const li = h(
            'li',
            { 'data-testid': 'directory-department', title: d.path, class: d.disabled ? 'muted' : undefined },
            d.name,
            ' ',
            h('span', { class: 'muted' }, `(${d.contacts})`),
            d.disabled ? t('（停用）', ' (disabled)') : '',
          );
          li.style.marginLeft = depth * 16 + 'px'; // CSSOM: allowed under style-src 'self'
          return li;
        }),
      );
      if (deps.departments.length === 0) tree.replaceChildren(h('li', { class: 'muted' }, t('没有部门', 'No departments')));
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function doImport() {
    report.replaceChildren();
    const f = file.files?.[0];
    if (!f) return status.show(t('请选择 CSV 或 JSON 文件。', 'Choose a CSV or JSON file.'), false);
    const data = await f.text();
    const format = /\.json$/i.test(f.name) || /^\s*[[{]/.test(data) ? 'json' : 'csv';
    try {
      const res = await api('directory/import', {
        method: 'POST',
        body: { role: state.role || undefined, format, data, lang: t('zh-CN', 'en') },
      });
      const r = res.report;
      status.show(
        t(
          `已导入：联系人新增 ${r.contacts.inserted}、更新 ${r.contacts.updated}；部门新增 ${r.departments.inserted}`,
          `Imported: ${r.contacts.inserted} contacts added, ${r.contacts.updated} updated; ${r.departments.inserted} departments added`,
        ),
        r.errors.length === 0,
      );
      if (r.errors.length)
        report.append(
          h('h3', {}, t(`${r.errors.length} 行未导入`, `${r.errors.length} row(s) refused`)),
          h(
            'ul',
            { class: 'problems' },
            r.errors.map((e) => h('li', { 'data-testid': 'directory-refused' }, e.message)),
          ),
        );
      if (r.warnings.length)
        report.append(
          h('h3', {}, t('提示', 'Warnings')),
          h(
            'ul',
            {},
            r.warnings.map((w) => h('li', { class: 'muted' }, w.message)),
          ),
        );
      file.value = '';
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  container.append(
    h('h2', {}, t('通讯录', 'Directory')),
    h(
      'div',
      { class: 'row' },
      h('label', {}, t('角色 ', 'Role '), roleSel),
      q,
      h('button', { type: 'button', 'data-testid': 'directory-search-button', onclick: search }, t('搜索', 'Search')),
    ),
    status.node,
    list,
    pager,
    h('h3', {}, t('部门', 'Departments')),
    tree,
    h('h3', {}, t('导入通讯录（CSV / JSON）', 'Import (CSV / JSON)')),
    h(
      'p',
      { class: 'muted' },
      t(
        '列：contact_key、name、emp_no、department、position、title、phone、email、tags、team、team_role 及各渠道 ID；部门用 path。按 contact_key 新增或更新，出错的行单独报告。',
        'Columns: contact_key, name, emp_no, department, position, title, phone, email, tags, team, team_role and one per channel; departments by path. Upserts by contact_key; refused rows are reported one by one.',
      ),
    ),
    h(
      'div',
      { class: 'row' },
      file,
      h(
        'button',
        { type: 'button', class: 'primary', 'data-testid': 'directory-import', onclick: () => void doImport() },
        t('导入', 'Import'),
      ),
    ),
    report,
  );
  await load();
}

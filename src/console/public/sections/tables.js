// Console section 'tables' (docs/console.md "Table browser"): read-only, paged rows of one data
// table, read as the chosen role (its grants and row scope apply). The server writes every cell
// as the datatable's display does; a cut cell keeps its full text in the tooltip.
import { h, table } from '../ui.js';

const PAGE_SIZE = 50;

export async function mount(container, api, t) {
  const lang = t('zh-CN', 'en');
  let org = '';
  let role = '';
  let tableId = '';
  let page = 0;
  const orgSel = h('select', { 'data-testid': 'tables-org', onchange: () => void pick({ org: orgSel.value, role: '' }) });
  const roleSel = h('select', { 'data-testid': 'tables-role', onchange: () => void pick({ org, role: roleSel.value }) });
  const tableSel = h('select', {
    'data-testid': 'tables-table',
    onchange: () => {
      tableId = tableSel.value;
      page = 0;
      void rows();
    },
  });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'tables-error' });
  const grid = h('div', { 'data-testid': 'tables-grid' });
  const pageLabel = h('span', { class: 'muted', 'data-testid': 'tables-page' });
  const prev = h(
    'button',
    {
      type: 'button',
      'data-testid': 'tables-prev',
      onclick: () => {
        if (page > 0) {
          page--;
          void rows();
        }
      },
    },
    t('上一页', 'Previous'),
  );
  const next = h(
    'button',
    {
      type: 'button',
      'data-testid': 'tables-next',
      onclick: () => {
        page++;
        void rows();
      },
    },
    t('下一页', 'Next'),
  );

  const query = (extra) => new URLSearchParams({ lang, ...(org ? { org } : {}), ...(role ? { role } : {}), ...extra }).toString();

  async function pick(next) {
    org = next.org;
    role = next.role;
    try {
      const data = await api('tables/?' + query({}));
      org = data.org;
      role = data.role;
      orgSel.replaceChildren(...data.orgs.map((o) => h('option', { value: o }, o)));
      orgSel.value = org;
      roleSel.replaceChildren(...data.roles.map((r) => h('option', { value: r }, r)));
      roleSel.value = role;
      tableSel.replaceChildren(...data.tables.map((x) => h('option', { value: x.id }, x.title)));
      if (!data.tables.some((x) => x.id === tableId)) {
        tableId = data.tables[0]?.id ?? '';
        page = 0;
      }
      tableSel.value = tableId;
      if (!tableId) {
        error.textContent = '';
        grid.replaceChildren(h('p', { class: 'muted' }, t('这个组织还没有数据表。', 'This organisation has no data tables yet.')));
        pageLabel.textContent = '';
        prev.disabled = true;
        next.disabled = true;
        return;
      }
      await rows();
    } catch (err) {
      error.textContent = err.message;
    }
  }

  async function rows() {
    prev.disabled = true;
    next.disabled = true;
    try {
      const data = await api('tables/rows?' + query({ table: tableId, page: String(page), page_size: String(PAGE_SIZE) }));
      error.textContent = '';
      prev.disabled = data.page === 0;
      next.disabled = !data.has_more;
      const from = data.page * data.page_size + 1;
      const to = data.page * data.page_size + data.rows.length;
      pageLabel.textContent =
        data.rows.length === 0
          ? t('共 ' + data.total + ' 条', data.total + ' rows')
          : t('第 ' + from + '–' + to + ' 条，共 ' + data.total + ' 条', 'Rows ' + from + '–' + to + ' of ' + data.total);
      grid.replaceChildren(
        data.rows.length === 0
          ? h('p', { class: 'muted' }, t('没有记录。', 'No rows.'))
          : table(
              data.columns.map((title, i) => ({
                title,
                cell: (r) => h('span', { title: r.cells[i].full }, r.cells[i].text),
              })),
              data.rows,
              'tables-row',
            ),
      );
    } catch (err) {
      grid.replaceChildren();
      pageLabel.textContent = '';
      error.textContent = err.message;
    }
  }

  container.append(
    h('h2', {}, t('数据表浏览', 'Table browser')),
    h(
      'p',
      { class: 'muted' },
      t('只读；按所选角色的授权与行范围读取。', "Read-only; rows as the chosen role's grants and row scope allow."),
    ),
    h(
      'div',
      { class: 'row' },
      h('label', {}, t('组织 ', 'Organisation '), orgSel),
      h('label', {}, t('角色 ', 'Role '), roleSel),
      h('label', {}, t('数据表 ', 'Table '), tableSel),
    ),
    error,
    grid,
    h('div', { class: 'row' }, prev, pageLabel, next),
  );
  await pick({ org: '', role: '' });
}

// Console section 'grants' (docs/console-sections.md "Table grants"): data tables of one organisation with their
// grant rows (exceptions: a table without grants is open to every role); grant with actions and
// row scope own + owner field; revoke.
import { h, statusLine, table } from '../ui.js';

export async function mount(container, api, t) {
  let org = '';
  let data = null;
  const orgSel = h('select', {
    'data-testid': 'grants-org',
    onchange: () => {
      org = orgSel.value;
      void load();
    },
  });
  const status = statusLine('grants-status');
  const tables = h('div', { 'data-testid': 'grants-tables' });
  const tableSel = h('select', { 'data-testid': 'grants-table', onchange: () => fillOwnerFields() });
  const roleSel = h('select', { 'data-testid': 'grants-role' });
  const actions = h('div', { class: 'row', 'data-testid': 'grants-actions' });
  const scopeSel = h(
    'select',
    { 'data-testid': 'grants-scope', onchange: () => fillOwnerFields() },
    h('option', { value: 'all' }, t('全部行', 'All rows')),
    h('option', { value: 'own' }, t('仅本人的行（own）', 'Own rows only')),
  );
  const ownerSel = h('select', { 'data-testid': 'grants-owner-field' });

  function fillOwnerFields() {
    const tb = data?.tables.find((x) => x.id === tableSel.value);
    ownerSel.replaceChildren(...(tb ? tb.fields : []).map((f) => h('option', { value: f }, f)));
    ownerSel.disabled = scopeSel.value !== 'own';
  }

  async function load() {
    try {
      data = await api('grants/tables' + (org ? '?' + new URLSearchParams({ org }) : ''));
      org = data.org;
      if (orgSel.options.length === 0) orgSel.replaceChildren(...data.orgs.map((o) => h('option', { value: o }, o)));
      orgSel.value = org;
      if (roleSel.options.length === 0) roleSel.replaceChildren(...data.roles.map((r) => h('option', { value: r }, r)));
      if (actions.childElementCount === 0) {
        actions.append(
          ...data.actions.map((a) =>
            h('label', {}, h('input', { type: 'checkbox', value: a, 'data-testid': 'grants-action-' + a }), ' ' + a),
          ),
        );
      }
      tableSel.replaceChildren(...data.tables.map((x) => h('option', { value: x.id }, x.title)));
      fillOwnerFields();
      tables.replaceChildren(
        ...(data.tables.length === 0
          ? [h('p', { class: 'muted' }, t('这个组织还没有数据表。', 'This organisation has no data tables yet.'))]
          : data.tables.map((x) =>
              h(
                'section',
                { 'data-testid': 'grants-table-' + x.title },
                h('h3', {}, x.title),
                x.grants.length === 0
                  ? h('p', { class: 'muted' }, t('没有授权行：所有角色都可访问。', 'No grants: open to every role.'))
                  : table(
                      [
                        { title: t('角色', 'Role'), cell: (g) => g.roleId },
                        { title: t('操作', 'Actions'), cell: (g) => (g.actions ? g.actions.join(', ') : t('全部', 'all')) },
                        {
                          title: t('行范围', 'Row scope'),
                          cell: (g) => (g.rowScope === 'own' ? t('本人（', 'own (') + g.ownerField + t('）', ')') : t('全部', 'all')),
                        },
                        {
                          title: '',
                          cell: (g) =>
                            h(
                              'button',
                              { type: 'button', 'data-testid': 'grants-revoke', onclick: () => void revoke(x, g.roleId) },
                              t('撤销', 'Revoke'),
                            ),
                        },
                      ],
                      x.grants,
                      'grants-row',
                    ),
              ),
            )),
      );
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function revoke(x, roleId) {
    if (!confirm(t(`撤销角色「${roleId}」对「${x.title}」的授权？`, `Revoke the grant of role "${roleId}" on "${x.title}"?`))) return;
    try {
      await api('grants/revoke', { method: 'POST', body: { org, table: x.id, role: roleId } });
      status.show(t('已撤销。', 'Revoked.'));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function grant() {
    const chosen = [...actions.querySelectorAll('input:checked')].map((i) => i.value);
    const body = { org, table: tableSel.value, role: roleSel.value, actions: chosen.length ? chosen : null, row_scope: scopeSel.value };
    if (scopeSel.value === 'own') body.owner_field = ownerSel.value;
    try {
      await api('grants/grant', { method: 'POST', body });
      status.show(t('已授权。', 'Granted.'));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  container.append(
    h('h2', {}, t('数据表授权', 'Table grants')),
    h('div', { class: 'row' }, h('label', {}, t('组织 ', 'Organisation '), orgSel)),
    status.node,
    tables,
    h('h3', {}, t('授权', 'Grant')),
    h('div', { class: 'row' }, h('label', {}, t('数据表 ', 'Table '), tableSel), h('label', {}, t('角色 ', 'Role '), roleSel)),
    h('p', { class: 'muted' }, t('操作（都不选 = 全部操作）：', 'Actions (none checked = every action):')),
    actions,
    h(
      'div',
      { class: 'row' },
      h('label', {}, t('行范围 ', 'Row scope '), scopeSel),
      h('label', {}, t('负责人工号字段 ', 'Owner field (employee number) '), ownerSel),
      h('button', { type: 'button', class: 'primary', 'data-testid': 'grants-grant', onclick: () => void grant() }, t('授权', 'Grant')),
    ),
  );
  await load();
}

// Console section 'audit': the audit log with filters role / skill / actor / since and paging
// (docs/console.md, docs/audit.md).
import { h, table, when } from '../ui.js';

export async function mount(container, api, t) {
  const f = {
    role: h('input', { type: 'text', 'data-testid': 'audit-role', placeholder: t('角色', 'Role') }),
    skill: h('input', { type: 'text', 'data-testid': 'audit-skill', placeholder: t('技能', 'Skill') }),
    actor: h('input', { type: 'text', 'data-testid': 'audit-actor', placeholder: t('工号 actor_emp_no', 'actor_emp_no') }),
    since: h('input', { type: 'datetime-local', 'data-testid': 'audit-since', 'aria-label': t('起始时间', 'Since') }),
  };
  let page = 0;
  const list = h('div');
  const error = h('p', { class: 'error', role: 'alert' });
  const prev = h(
    'button',
    {
      type: 'button',
      'data-testid': 'audit-prev',
      onclick: () => {
        if (page > 0) {
          page--;
          void load();
        }
      },
    },
    t('上一页', 'Previous'),
  );
  const next = h(
    'button',
    {
      type: 'button',
      'data-testid': 'audit-next',
      onclick: () => {
        page++;
        void load();
      },
    },
    t('下一页', 'Next'),
  );
  const pageLabel = h('span', { class: 'muted' });

  async function load() {
    const q = new URLSearchParams({ page: String(page), size: '50' });
    for (const k of ['role', 'skill', 'actor']) if (f[k].value.trim()) q.set(k, f[k].value.trim());
    if (f.since.value) q.set('since', new Date(f.since.value).toISOString());
    try {
      const data = await api('audit?' + q.toString());
      error.textContent = '';
      prev.disabled = page === 0;
      next.disabled = !data.has_more;
      pageLabel.textContent = t('第 ' + (page + 1) + ' 页', 'Page ' + (page + 1));
      list.replaceChildren(
        data.items.length === 0
          ? h('p', { class: 'muted' }, t('没有记录。', 'No rows.'))
          : table(
              [
                { title: t('时间', 'When'), class: 'nw', cell: (r) => when(r.at) },
                { title: t('角色', 'Role'), cell: (r) => r.roleId },
                { title: t('渠道', 'Channel'), cell: (r) => r.channel + ' / ' + r.line },
                { title: t('操作人', 'Actor'), cell: (r) => (r.actorName || '') + (r.actorEmpNo ? ' (' + r.actorEmpNo + ')' : '') },
                { title: t('技能', 'Skill'), cell: (r) => h('code', {}, r.skill + (r.action ? ' · ' + r.action : '')) },
                { title: t('参数', 'Parameters'), cell: (r) => h('span', { title: r.paramsHash }, (r.paramKeys || []).join(', ')) },
                {
                  title: t('结果', 'Outcome'),
                  cell: (r) =>
                    r.success
                      ? h('span', { class: 'ok' }, t('成功', 'ok'))
                      : h('span', { class: 'error' }, t('失败', 'failed') + (r.errorType ? ' (' + r.errorType + ')' : '')),
                },
                { title: t('耗时', 'ms'), cell: (r) => String(r.durationMs) },
                { title: t('确认', 'Confirm'), cell: (r) => (r.confirmTokenHash ? '✓' : '') },
              ],
              data.items,
              'audit-row',
            ),
      );
    } catch (err) {
      error.textContent = err.message;
    }
  }

  container.append(
    h('h2', {}, t('审计日志', 'Audit log')),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (ev) => {
          ev.preventDefault();
          page = 0;
          void load();
        },
      },
      f.role,
      f.skill,
      f.actor,
      f.since,
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'audit-filter' }, t('筛选', 'Filter')),
    ),
    error,
    list,
    h('div', { class: 'row' }, prev, pageLabel, next),
  );
  await load();
}

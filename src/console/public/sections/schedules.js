// Console section 'schedules' (docs/console-sections.md "Schedules"): cron schedules that run a skill or a
// saved chain and deliver the result (notify:<alias|url>, or <channel>[@<account>]:<id>).
import { h, statusLine, table, when } from '../ui.js';

export async function mount(container, api, t) {
  const status = statusLine('schedules-status');
  const list = h('div', { 'data-testid': 'schedules-list' });
  const f = {
    name: h('input', { 'data-testid': 'schedules-name', placeholder: 'daily-report' }),
    cron: h('input', { 'data-testid': 'schedules-cron', placeholder: '0 9 * * 1-5' }),
    tz: h('input', { 'data-testid': 'schedules-tz', value: 'UTC' }),
    kind: h(
      'select',
      { 'data-testid': 'schedules-kind' },
      h('option', { value: 'skill' }, t('技能', 'Skill')),
      h('option', { value: 'chain' }, t('链', 'Chain')),
    ),
    target: h('input', { 'data-testid': 'schedules-target', placeholder: t('技能或链的名称', 'Skill or chain name') }),
    input: h('textarea', { 'data-testid': 'schedules-input', rows: 3, cols: 60, spellcheck: 'false' }, '{}'),
    to: h('input', { 'data-testid': 'schedules-to', size: 40, placeholder: 'notify:ops / telegram:12345' }),
    role: h('select', { 'data-testid': 'schedules-role' }),
    missed: h(
      'select',
      { 'data-testid': 'schedules-missed' },
      h('option', { value: 'once' }, t('补跑一次（once）', 'Run once (once)')),
      h('option', { value: 'skip' }, t('跳过（skip）', 'Skip (skip)')),
      h('option', { value: 'all' }, t('全部补跑（all）', 'Run each (all)')),
    ),
  };
  const STATUS = {
    done: ['完成', 'done'],
    failed: ['失败', 'failed'],
    missed: ['错过', 'missed'],
    running: ['运行中', 'running'],
    claimed: ['待运行', 'claimed'],
  };
  const occurrence = (o) =>
    h(
      'li',
      { 'data-testid': 'schedules-occurrence', 'data-status': o.status },
      `${when(o.planned_at)} ${t(...(STATUS[o.status] ?? [o.status, o.status]))}${o.catch_up ? t('（补跑）', ' (catch-up)') : ''}${o.error ? ` — ${o.error}` : ''}`,
    );

  async function load() {
    try {
      const res = await api('schedules/');
      if (f.role.options.length === 0) f.role.replaceChildren(...res.roles.map((r) => h('option', { value: r }, r)));
      list.replaceChildren(
        res.schedules.length === 0
          ? h('p', { class: 'muted' }, t('还没有定时任务。', 'No schedules yet.'))
          : table(
              [
                { title: t('名称', 'Name'), cell: (s) => s.name },
                { title: 'cron', cell: (s) => `${s.cron} (${s.timezone})` },
                { title: t('运行', 'Runs'), cell: (s) => `${s.kind === 'chain' ? t('链', 'chain') : t('技能', 'skill')} ${s.target}` },
                { title: t('输入', 'Input'), cell: (s) => h('code', {}, JSON.stringify(s.input)) },
                { title: t('发送到', 'Deliver to'), cell: (s) => s.deliver_to || '-' },
                { title: t('角色', 'Role'), cell: (s) => s.role_id },
                {
                  title: t('上次运行', 'Last run'),
                  cell: (s) =>
                    s.last_run_at ? `${when(s.last_run_at)} ${s.last_ok ? t('成功', 'ok') : t('失败', 'failed')}` : t('未运行', 'never'),
                },
                { title: t('错过时', 'When missed'), cell: (s) => s.missed },
                {
                  title: t('最近的计划时间', 'Recent occurrences'),
                  cell: (s) => (s.occurrences.length === 0 ? '-' : h('ul', { class: 'occurrences' }, ...s.occurrences.map(occurrence))),
                },
                {
                  title: '',
                  cell: (s) =>
                    h(
                      'button',
                      { type: 'button', 'data-testid': 'schedules-remove', onclick: () => void remove(s.name) },
                      t('删除', 'Remove'),
                    ),
                },
              ],
              res.schedules,
              'schedules-row',
            ),
      );
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function remove(name) {
    if (!confirm(t(`删除定时任务「${name}」？`, `Remove schedule "${name}"?`))) return;
    try {
      await api('schedules/' + encodeURIComponent(name), { method: 'DELETE' });
      status.show(t('已删除。', 'Removed.'));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function save() {
    let input;
    try {
      input = JSON.parse(f.input.value || '{}');
    } catch (err) {
      return status.show(t('输入不是合法的 JSON：', 'Input is not valid JSON: ') + err.message, false);
    }
    try {
      const res = await api('schedules/', {
        method: 'POST',
        body: {
          name: f.name.value.trim(),
          cron: f.cron.value.trim(),
          timezone: f.tz.value.trim() || 'UTC',
          kind: f.kind.value,
          target: f.target.value.trim(),
          input,
          deliver_to: f.to.value.trim(),
          role: f.role.value,
          missed: f.missed.value,
        },
      });
      f.to.value = ''; // may hold an Apprise URL with credentials
      status.show(t(`已保存：${res.schedule.name}`, `Saved: ${res.schedule.name}`));
      await load();
    } catch (err) {
      status.show(err.message, false);
    }
  }

  const label = (zh, en, node) => h('label', {}, t(zh, en) + ' ', node);
  container.append(
    h('h2', {}, t('定时任务', 'Schedules')),
    status.node,
    list,
    h('h3', {}, t('新增或替换（同名覆盖）', 'Add or replace (same name overwrites)')),
    h('div', { class: 'row' }, label('名称', 'Name', f.name), label('cron', 'cron', f.cron), label('时区', 'Time zone', f.tz)),
    h(
      'div',
      { class: 'row' },
      label('类型', 'Kind', f.kind),
      label('目标', 'Target', f.target),
      label('角色', 'Role', f.role),
      label('错过的运行', 'Missed runs', f.missed),
    ),
    h('div', { class: 'row' }, label('输入（JSON）', 'Input (JSON)', f.input)),
    h(
      'div',
      { class: 'row' },
      label('发送到', 'Deliver to', f.to),
      h('button', { type: 'button', class: 'primary', 'data-testid': 'schedules-save', onclick: () => void save() }, t('保存', 'Save')),
    ),
  );
  await load();
}

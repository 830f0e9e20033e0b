// Console section 'proxy' (docs/console-sections.md "Proxy fill"): an admin runs a role's skill for a
// contact through the chat pipeline. The skill sees actor_is_admin true and the applicant-identity
// keys cleared (R-ADM-01); actor_name/phone/email are the admin's (R-ADM-02).
import { h, safeHtml, statusLine } from '../ui.js';

/** A JSON input template from a tool's parameters schema: defaults, else a typed empty value. */
export function templateFor(schema) {
  const out = {};
  const props = schema?.properties || {};
  const required = new Set(schema?.required || []);
  const keys = Object.keys(props).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  for (const k of keys) {
    const p = props[k] || {};
    if (p.default !== undefined) out[k] = p.default;
    else if (Array.isArray(p.enum) && p.enum.length) out[k] = p.enum[0];
    else {
      const type = Array.isArray(p.type) ? p.type[0] : p.type;
      out[k] =
        type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'array' ? [] : type === 'object' ? {} : '';
    }
  }
  return out;
}

export async function mount(container, api, t) {
  let tools = [];
  const status = statusLine('proxy-status');
  const roleSel = h('select', { 'data-testid': 'proxy-role', onchange: () => void loadRole(roleSel.value) });
  const skillSel = h('select', { 'data-testid': 'proxy-skill', onchange: () => fillTemplate() });
  const desc = h('p', { class: 'muted', 'data-testid': 'proxy-skill-description' });
  const who = h('input', { type: 'search', 'data-testid': 'proxy-contact-search', placeholder: t('搜索联系人', 'Search contacts') });
  const forSel = h('select', { 'data-testid': 'proxy-for' });
  const input = h('textarea', { 'data-testid': 'proxy-input', rows: 10, cols: 70, spellcheck: 'false' });
  const display = h('div', { 'data-testid': 'proxy-display', class: 'display' });
  const envelope = h('pre', { 'data-testid': 'proxy-envelope', class: 'doc hidden' });

  function fillTemplate() {
    const tool = tools.find((x) => x.name === skillSel.value);
    desc.textContent = tool ? tool.description : '';
    input.value = JSON.stringify(tool ? templateFor(tool.parameters) : {}, null, 2);
  }

  async function loadContacts(role) {
    const qs = new URLSearchParams({ role });
    if (who.value.trim()) qs.set('q', who.value.trim());
    const res = await api('proxy/contacts?' + qs);
    forSel.replaceChildren(
      ...res.contacts.map((c) =>
        h(
          'option',
          { value: c.contact_key },
          `${c.name || c.contact_key}（${c.contact_key}${c.emp_no ? ' · ' + c.emp_no : ''}${c.department ? ' · ' + c.department : ''}）`,
        ),
      ),
    );
  }

  async function loadRole(role) {
    try {
      const res = await api('proxy/skills' + (role ? '?' + new URLSearchParams({ role }) : ''));
      if (roleSel.options.length === 0) roleSel.replaceChildren(...res.roles.map((r) => h('option', { value: r }, r)));
      roleSel.value = res.role;
      tools = res.tools;
      skillSel.replaceChildren(...tools.map((x) => h('option', { value: x.name }, x.name)));
      fillTemplate();
      await loadContacts(res.role);
    } catch (err) {
      status.show(err.message, false);
    }
  }

  async function run() {
    let body;
    try {
      body = JSON.parse(input.value || '{}');
    } catch (err) {
      return status.show(t('输入不是合法的 JSON：', 'Input is not valid JSON: ') + err.message, false);
    }
    if (!forSel.value) return status.show(t('请选择为谁代填。', 'Choose the contact to fill in for.'), false);
    status.show(t('运行中…', 'Running…'));
    display.replaceChildren();
    try {
      const res = await api('proxy/run', {
        method: 'POST',
        body: { role: roleSel.value, skill: skillSel.value, for: forSel.value, input: body },
      });
      const env = res.envelope;
      const ok = env.success !== false;
      status.show(
        (ok ? t('完成', 'Done') : t('失败', 'Failed')) +
          t(`（代填人：${res.filled_by.name}，为：${res.for}）`, ` (filled in by ${res.filled_by.name} for ${res.for})`),
        ok,
      );
      if (res.display_html) safeHtml(display, res.display_html);
      else if (env.user_message || env.error) display.textContent = env.user_message || env.error;
      envelope.textContent = JSON.stringify(env, null, 2);
      envelope.classList.remove('hidden');
    } catch (err) {
      status.show(err.message, false);
    }
  }

  who.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') void loadContacts(roleSel.value).catch((err) => status.show(err.message, false));
  });
  const label = (zh, en, node) => h('label', {}, t(zh, en) + ' ', node);
  container.append(
    h('h2', {}, t('管理员代填', 'Proxy fill')),
    h(
      'p',
      { class: 'muted' },
      t(
        '以管理员身份为某个联系人运行技能：技能看到 actor_is_admin = true，申请人身份键（工号、职级、部门等）被清空，姓名/电话/邮箱为代填人的。需要申请人信息的技能会要求在输入中补充。',
        "Run a skill for a contact as an admin: the skill sees actor_is_admin = true, the applicant identity keys (employee number, title, department…) are cleared, and name/phone/e-mail are the admin's. Skills that need the applicant's details ask for them in the input.",
      ),
    ),
    h('div', { class: 'row' }, label('角色', 'Role', roleSel), label('技能', 'Skill', skillSel)),
    desc,
    h('div', { class: 'row' }, label('为谁代填', 'For', forSel), who),
    h('div', { class: 'row' }, label('输入（JSON，按技能的参数生成）', "Input (JSON, generated from the skill's parameters)", input)),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'proxy-run', onclick: () => void run() }, t('运行', 'Run')),
    ),
    status.node,
    display,
    envelope,
  );
  await loadRole('');
}

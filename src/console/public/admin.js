// skillgate operators' console shell (docs/console.md). No framework, no build step: the
// shell signs in, lists the sections the server offers and loads each one's module
// /admin/assets/sections/<id>.js, which exports mount(container, api, t).
import { setTimeZone } from './ui.js';

const EN = /^en\b/i.test(navigator.language || '');
/** Pick the zh-CN or the English text. */
export const t = (zh, en) => (EN && en !== undefined ? en : zh);

/** Error thrown by api(): message = the server's `error` text; `code`, `status` kept. */
export class ApiError extends Error {
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/**
 * Call /admin/api/<path>. `body`: a plain object (sent as JSON), a Blob/File (sent raw with its
 * type), or undefined. Returns the parsed JSON; throws ApiError with the server's text.
 */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { 'X-Skillgate-Admin': '1' };
  let payload;
  if (body instanceof Blob) {
    payload = body;
    headers['Content-Type'] = body.type || 'application/octet-stream';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch('/admin/api/' + path.replace(/^\/+/, ''), { method, headers, body: payload, credentials: 'same-origin' });
  let json = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('signin')) showSignin();
    throw new ApiError(
      json?.error || t('请求失败（HTTP ' + res.status + '）', 'Request failed (HTTP ' + res.status + ')'),
      json?.code,
      res.status,
    );
  }
  return json;
}

const $ = (id) => document.getElementById(id);
const el = {
  who: $('who'),
  signout: $('signout'),
  disabled: $('disabled'),
  signin: $('signin'),
  token: $('token'),
  signinError: $('signin-error'),
  layout: $('layout'),
  nav: $('nav'),
  section: $('section'),
};
document.documentElement.lang = EN ? 'en' : 'zh-CN';
document.title = t('skillgate 管理控制台', 'skillgate console');
$('brand').textContent = document.title;
$('token-label').textContent = t(
  '管理令牌（SKILLGATE_ADMIN_TOKEN 或管理员的登录令牌）',
  "Admin token (SKILLGATE_ADMIN_TOKEN or an admin contact's sign-in token)",
);
$('signin-button').textContent = t('登录', 'Sign in');
el.signout.textContent = t('退出', 'Sign out');

let sections = [];
let current = null;

function showSignin() {
  el.layout.classList.add('hidden');
  el.signout.classList.add('hidden');
  el.who.textContent = '';
  el.signin.classList.remove('hidden');
  el.token.focus();
}

async function boot() {
  const s = await api('session');
  setTimeZone(s.time_zone);
  if (!s.enabled) {
    el.disabled.textContent = s.how_to_enable;
    el.disabled.classList.remove('hidden');
    return;
  }
  if (!s.signed_in) return showSignin();
  el.signin.classList.add('hidden');
  el.who.textContent = s.admin.kind === 'token' ? t('管理员（令牌）', 'Admin (token)') : s.admin.name;
  el.signout.classList.remove('hidden');
  sections = await api('sections');
  el.nav.replaceChildren(
    ...sections.map((sec) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.testid = 'admin-nav-' + sec.id;
      b.textContent = t(sec.title.zh, sec.title.en);
      b.addEventListener('click', () => {
        location.hash = sec.id;
      });
      return b;
    }),
  );
  el.layout.classList.remove('hidden');
  await route();
}

async function route() {
  if (sections.length === 0) return;
  const id = location.hash.slice(1);
  const sec = sections.find((s) => s.id === id) || sections[0];
  for (const b of el.nav.children) {
    if (b.dataset.testid === 'admin-nav-' + sec.id) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  current = sec.id;
  const container = document.createElement('div');
  container.dataset.testid = 'admin-section-' + sec.id;
  el.section.replaceChildren(container);
  try {
    const mod = await import('/admin/assets/sections/' + encodeURIComponent(sec.id) + '.js');
    if (current !== sec.id) return;
    await mod.mount(container, api, t);
  } catch (err) {
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = err.message;
    container.append(p);
  }
}

el.signin.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  el.signinError.classList.add('hidden');
  try {
    await api('signin', { method: 'POST', body: { token: el.token.value } });
    el.token.value = '';
    await boot();
  } catch (err) {
    el.signinError.textContent = err.message;
    el.signinError.classList.remove('hidden');
  }
});
el.signout.addEventListener('click', async () => {
  await api('signout', { method: 'POST' }).catch(() => undefined);
  sections = [];
  showSignin();
});
window.addEventListener('hashchange', () => {
  void route();
});
boot().catch((err) => {
  el.disabled.textContent = err.message;
  el.disabled.classList.remove('hidden');
});

// skillgate web chat (docs/web-protocol.md). No framework, no build step. Every piece of
// server HTML is sanitized again with DOMPurify before it is inserted; everything else is
// inserted as text.

(() => {
  const EN = /^en\b/i.test(navigator.language || '');
  const T = EN
    ? {
        send: 'Send',
        stop: 'Stop',
        pending: 'waiting to send…',
        placeholder: 'Type a message — Enter to send, Shift+Enter for a new line',
        upload: 'Upload a file',
        message: 'Message',
        demo: 'Demo identity',
        working: 'Working…',
        online: 'connected',
        offline: 'reconnecting…',
        uploading: 'uploading…',
        uploaded: 'uploaded',
        remove: 'Remove',
        signin: 'Open a sign-in link: send /web to the bot on a channel where you are in the directory, or ask an operator.',
        refused: 'Sign-in refused. Ask for a new sign-in link.',
        rate: 'Too fast — wait a moment.',
        tooLong: 'The message is too long.',
        uploadFailed: 'Upload failed: ',
        uploadTooLarge: (mb) => `larger than the ${mb} MB limit`,
        uploadSignin: 'sign in first',
        uploadRefused: 'refused by the server',
        uploadBad: 'the file could not be read; try again',
        unknownUpload: 'That upload is no longer available.',
        failed: 'The message could not be handled; try again.',
        download: 'Download',
        expired: 'expired',
        confirm: 'Confirm',
        cancel: 'Cancel',
        chosen: 'Chosen: ',
        welcomeTitle: 'Hello!',
        welcomeText: 'Talk to the skills right here. Try one of these:',
        suggestions: [
          ['What can you do?', '/help'],
          ['List repair tickets', '/repair_ticket action=查询'],
          ['A slow task you can stop', '/countdown seconds=5'],
        ],
        signinTitle: 'Sign in',
        signinSubmit: 'Sign in',
        signinToken: 'Sign-in link or token',
        signinText:
          'Open the sign-in link you were given: send /web to the bot in any connected chat, or ask an administrator to create one with skillgate web token <contact>. You can also paste the link or token below.',
      }
    : {
        send: '发送',
        stop: '停止',
        pending: '等待发送…',
        placeholder: '输入消息，Enter 发送，Shift+Enter 换行',
        upload: '上传文件',
        message: '消息',
        demo: '演示身份',
        working: '处理中…',
        online: '已连接',
        offline: '正在重连…',
        uploading: '上传中…',
        uploaded: '已上传',
        remove: '移除',
        signin: '请打开登录链接：在你已登记的聊天渠道里给机器人发送 /web（或「网页登录」），或请管理员发给你。',
        refused: '登录被拒绝，请重新获取登录链接。',
        rate: '发送太快，请稍候。',
        tooLong: '消息太长。',
        uploadFailed: '上传失败：',
        uploadTooLarge: (mb) => `文件超过 ${mb} MB 上限`,
        uploadSignin: '请先登录',
        uploadRefused: '服务器拒绝了这次上传',
        uploadBad: '文件无法读取，请重试',
        unknownUpload: '该文件已不可用。',
        failed: '消息未能处理，请重试。',
        download: '下载',
        expired: '已过期',
        confirm: '确认',
        cancel: '取消',
        chosen: '已选择：',
        welcomeTitle: '你好！',
        welcomeText: '这里可以直接和技能对话。试试下面的一个：',
        suggestions: [
          ['看看我能做什么', '/help'],
          ['查看报修工单', '/repair_ticket action=查询'],
          ['试一个可以中途停止的慢任务', '/countdown seconds=5'],
        ],
        signinTitle: '登录',
        signinSubmit: '登录',
        signinToken: '登录链接或令牌',
        signinText:
          '请打开发给你的登录链接：在任一已接入的聊天里向机器人发送 /web，或请管理员用 skillgate web token <联系人> 生成。也可以把链接或令牌粘贴到下面。',
      };

  const $ = (id) => document.getElementById(id);
  const el = {
    messages: $('messages'),
    input: $('input'),
    send: $('send'),
    stop: $('stop'),
    upload: $('upload'),
    chips: $('chips'),
    status: $('status'),
    error: $('error'),
    me: $('me'),
    conn: $('conn'),
    demoWrap: $('demo-wrap'),
    demoSelect: $('demo-select'),
    hint: $('signin-hint'),
    form: $('composer'),
    signout: $('signout'),
  };
  $('signout').textContent = EN ? 'Sign out' : '退出登录';
  document.documentElement.lang = EN ? 'en' : 'zh-CN';
  el.send.textContent = T.send;
  el.stop.textContent = T.stop;
  el.input.placeholder = T.placeholder;
  $('upload-text').textContent = T.upload;
  $('upload-label').title = T.upload;
  $('input-label').textContent = T.message;
  $('demo-label').textContent = T.demo;

  const state = {
    ws: null,
    ready: false,
    lastSeq: 0,
    backoff: 500,
    heartbeat: null,
    heartbeatS: 25,
    pending: [], // uploads {upload_id, filename, mime_type, size, sha256}
    unacked: new Map(), // client_msg_id -> frame (resent after a reconnect or a rate_limited; the server dedupes)
    bubbles: new Map(), // client_msg_id -> the user's bubble (shown pending until acknowledged)
    resendTimer: null,
    shown: new Set(), // client_msg_ids of user messages already on the page
    running: false,
    maxText: 16000,
  };

  // ---------- rendering ----------
  const purify = () => window.DOMPurify;
  if (purify()) {
    purify().addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    });
  }
  function safeHtmlInto(node, html) {
    const p = purify();
    if (!p) {
      node.textContent = html.replace(/<[^>]*>/g, '');
      return;
    }
    node.innerHTML = p.sanitize(html, {
      USE_PROFILES: { html: true },
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
      FORBID_ATTR: ['style'],
    });
  }
  function scrollDown() {
    const main = el.messages.parentElement;
    main.scrollTop = main.scrollHeight;
  }
  function renderUser(text, attachments) {
    const li = bubble('user');
    li.textContent = text;
    if (attachments.length) {
      const files = document.createElement('div');
      files.className = 'files';
      files.textContent = '📎 ' + attachments.map((a) => a.filename).join('、');
      li.appendChild(files);
    }
    scrollDown();
    return li;
  }
  function setPending(id, on) {
    const li = state.bubbles.get(id);
    if (!li) return;
    li.classList.toggle('pending', on);
    li.setAttribute('data-state', on ? 'pending' : 'sent');
    let tag = li.querySelector('.pending-tag');
    if (on && !tag) {
      tag = document.createElement('span');
      tag.className = 'pending-tag';
      tag.setAttribute('data-testid', 'msg-pending');
      tag.textContent = T.pending;
      li.appendChild(tag);
    } else if (!on && tag) tag.remove();
  }
  // A frame refused with rate_limited is sent again after retry_after_ms (docs/web-protocol.md
  // "Limits"): every unacknowledged frame, oldest first, paced under the limit.
  function resendLater(ms) {
    for (const id of state.unacked.keys()) setPending(id, true);
    if (state.resendTimer) return;
    state.resendTimer = setTimeout(
      () => {
        state.resendTimer = null;
        const frames = Array.from(state.unacked.values());
        frames.forEach((frame, i) => {
          setTimeout(() => {
            if (state.unacked.has(frame.client_msg_id || frame.id)) rawSend(frame);
          }, i * 550);
        });
      },
      Math.max(50, Number(ms) || 1000),
    );
  }
  // A first visit (no history): a welcome with three suggested actions, gone with the first message.
  function showWelcome(on) {
    const box = $('welcome');
    if (on && !box.dataset.ready) {
      box.dataset.ready = '1';
      $('welcome-title').textContent = T.welcomeTitle;
      $('welcome-text').textContent = T.welcomeText;
      for (const [label, text] of T.suggestions) {
        const b = document.createElement('button');
        b.type = 'button';
        b.setAttribute('data-testid', 'welcome-action');
        b.textContent = label;
        const code = document.createElement('code');
        code.textContent = text;
        b.appendChild(code);
        b.addEventListener('click', () => {
          el.input.value = text;
          submit();
        });
        $('welcome-actions').appendChild(b);
      }
    }
    box.classList.toggle('hidden', !on);
  }
  function bubble(kind) {
    showWelcome(false);
    const li = document.createElement('li');
    li.className = 'msg ' + (kind === 'user' ? 'msg-user' : 'msg-bot');
    li.setAttribute('data-testid', kind === 'user' ? 'msg-user' : 'msg-bot');
    el.messages.appendChild(li);
    return li;
  }
  function showError(text) {
    el.error.textContent = text;
    el.error.classList.toggle('hidden', !text);
  }
  function setStatus(text) {
    if (text === null || text === undefined) {
      el.status.classList.add('hidden');
      el.status.textContent = '';
      return;
    }
    el.status.textContent = text === '' || text === '处理中…' ? T.working : text;
    el.status.classList.remove('hidden');
  }
  function setRunning(on) {
    state.running = on;
    el.stop.classList.toggle('hidden', !on);
    if (on) setStatus(T.working);
    else setStatus(null);
  }

  function renderAssistantMessage(f) {
    const li = bubble('bot');
    if (f.kind === 'notice') li.classList.add('notice');
    if (f.html) {
      safeHtmlInto(li, f.html);
      commandButtons(li);
    } else {
      li.classList.add('plain');
      li.textContent = f.display_md && !f.text.includes(f.display_md) ? (f.text ? f.text + '\n\n' : '') + f.display_md : f.text;
    }
    if (f.final) setRunning(false);
  }
  // The reference ids the files of a message got (img_1, file_2): shown on the message's file chips.
  function showUploadRefs(f) {
    const li = state.bubbles.get(f.reply_to);
    if (!li) return;
    let box = li.querySelector('.files');
    if (!box) {
      box = document.createElement('div');
      box.className = 'files';
      li.appendChild(box);
    }
    box.textContent = '';
    for (const u of f.uploads || []) {
      const chip = document.createElement('span');
      chip.className = 'sent-chip';
      chip.setAttribute('data-testid', 'sent-upload');
      const ref = document.createElement('code');
      ref.setAttribute('data-testid', 'upload-ref');
      ref.textContent = u.ref;
      chip.appendChild(ref);
      chip.appendChild(document.createTextNode(' ' + u.filename));
      chip.title = (EN ? 'Refer to it as ' : '引用方式：file=') + u.ref;
      box.appendChild(chip);
    }
  }
  // An inline `/command` in a bot message (help examples, suggestions for plain text) becomes a
  // button that puts the command in the message box; it is never sent without the person.
  function commandButtons(root) {
    for (const c of Array.from(root.querySelectorAll('code'))) {
      const cmd = c.textContent || '';
      if (c.closest('pre') || !/^\/[A-Za-z0-9_-]/.test(cmd)) continue;
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'command';
      b.setAttribute('data-testid', 'command-button');
      b.textContent = cmd;
      b.addEventListener('click', () => {
        el.input.value = cmd;
        el.input.focus();
      });
      c.replaceWith(b);
    }
  }
  function renderMedia(f) {
    const m = f.media || {};
    const li = bubble('bot');
    li.classList.add('media');
    if (m.url && m.kind === 'image') {
      const img = document.createElement('img');
      img.src = m.url;
      img.alt = m.filename || '';
      img.loading = 'lazy';
      li.appendChild(img);
    } else if (m.url) {
      const a = document.createElement('a');
      a.href = m.url;
      a.textContent = (m.filename || T.download) + (m.size ? ' (' + formatSize(m.size) + ')' : '');
      a.setAttribute('download', m.filename || '');
      a.setAttribute('data-testid', 'media-link');
      li.appendChild(a);
    } else {
      li.textContent = m.filename || '';
    }
    if (m.caption_md) {
      const cap = document.createElement('div');
      cap.className = 'files';
      cap.textContent = m.caption_md;
      li.appendChild(cap);
    }
  }
  function renderConfirm(f) {
    const li = bubble('bot');
    li.classList.add('confirm');
    if (f.kind === 'choice') li.classList.add('choice');
    const prompt = document.createElement('div');
    if (f.prompt_html) safeHtmlInto(prompt, f.prompt_html);
    else prompt.textContent = f.prompt_md;
    li.appendChild(prompt);
    const actions = document.createElement('div');
    actions.className = 'actions';
    const expired = Date.parse(f.expires_at) < Date.now();
    const buttons = [];
    for (const o of f.options || []) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = o.label || (o.id === 'confirm' ? T.confirm : T.cancel);
      if (o.style === 'danger' || o.style === 'primary') b.className = o.style;
      if (f.kind === 'choice') {
        b.setAttribute('data-testid', 'choice-button');
        b.setAttribute('data-option', o.id);
      } else if (o.id === 'confirm') b.setAttribute('data-testid', 'confirm-button');
      else if (o.id === 'cancel') b.setAttribute('data-testid', 'cancel-button');
      b.disabled = expired;
      b.addEventListener('click', () => {
        for (const x of buttons) x.disabled = true;
        b.setAttribute('aria-pressed', 'true');
        const frame = { v: 1, type: 'confirm.response', id: newId('c'), confirm_token: f.confirm_token, choice: o.id };
        state.unacked.set(frame.id, frame);
        send(frame);
        if (o.id === 'confirm' || f.kind === 'choice') setRunning(true);
      });
      buttons.push(b);
      actions.appendChild(b);
    }
    if (expired) {
      const s = document.createElement('span');
      s.textContent = T.expired;
      actions.appendChild(s);
    }
    li.appendChild(actions);
  }
  function formatSize(n) {
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
    return (n / 1024 / 1024).toFixed(1) + ' MB';
  }

  // ---------- frames ----------
  function onFrame(f) {
    if (typeof f.seq === 'number' && f.type !== 'hello.ok') {
      if (f.seq <= state.lastSeq) return; // already shown
      state.lastSeq = f.seq;
    }
    switch (f.type) {
      case 'hello.ok':
        state.ready = true;
        state.backoff = 500;
        state.heartbeatS = f.heartbeat_s || 25;
        if (f.limits?.max_text_chars) state.maxText = f.limits.max_text_chars;
        if (f.seq < state.lastSeq) {
          // The server has fewer frames than we saw (a reset database): start over.
          el.messages.textContent = '';
          state.lastSeq = 0;
        }
        el.me.textContent = f.user ? f.user.display_name : '';
        showWelcome(f.seq === 0 && !el.messages.children.length);
        el.conn.textContent = T.online;
        el.conn.classList.add('online');
        el.hint.classList.add('hidden');
        if (el.error.textContent === T.offline) showError(''); // the "reconnecting" note is stale now
        startHeartbeat();
        for (const frame of state.unacked.values()) rawSend(frame);
        break;
      case 'user.echo':
        if (!state.shown.has(f.client_msg_id)) {
          state.shown.add(f.client_msg_id);
          state.bubbles.set(f.client_msg_id, renderUser(f.text, f.attachments || []));
        }
        break;
      case 'assistant.message':
        renderAssistantMessage(f);
        break;
      case 'assistant.media':
        renderMedia(f);
        break;
      case 'upload.refs':
        showUploadRefs(f);
        break;
      case 'confirm.request':
        renderConfirm(f);
        setRunning(false);
        break;
      case 'status':
        setStatus(f.text);
        // A status means a turn of this conversation runs (also one started before a reload): offer stop.
        if (f.text !== null && f.text !== undefined) {
          state.running = true;
          el.stop.classList.remove('hidden');
        }
        break;
      case 'user.ack':
        state.unacked.delete(f.client_msg_id);
        setPending(f.client_msg_id, false);
        if (el.error.textContent === T.rate && !Array.from(state.unacked.keys()).length) showError('');
        break;
      case 'ping':
        rawSend({ v: 1, type: 'pong' });
        break;
      case 'error':
        if (f.code === 'unauthorized') {
          showHint(T.refused);
        } else if (f.code === 'rate_limited') {
          showError(T.rate);
          resendLater(f.retry_after_ms);
        } else if (f.code === 'text_too_long') {
          showError(T.tooLong);
          state.unacked.delete(f.ref);
          setRunning(false);
        } else if (f.code === 'unknown_upload') {
          showError(T.unknownUpload);
          state.unacked.delete(f.ref);
          setRunning(false);
        } else if (f.code !== 'bad_frame') {
          showError(T.failed);
        }
        break;
      default:
        break;
    }
    scrollDown();
  }

  // ---------- socket ----------
  function rawSend(frame) {
    if (state.ws && state.ws.readyState === WebSocket.OPEN) {
      state.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }
  function send(frame) {
    if (!state.ready || !rawSend(frame)) showError(T.offline);
  }
  function startHeartbeat() {
    clearInterval(state.heartbeat);
    state.heartbeat = setInterval(() => rawSend({ v: 1, type: 'ping' }), state.heartbeatS * 1000);
  }
  function connect() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(proto + '//' + location.host + '/ws');
    state.ws = ws;
    state.ready = false;
    ws.addEventListener('open', () => {
      const hello = {
        v: 1,
        type: 'hello',
        id: newId('c'),
        auth: { scheme: 'cookie' },
        client: { name: 'skillgate-web', locale: navigator.language || 'zh-CN' },
      };
      if (state.lastSeq > 0) hello.resume = { last_server_seq: state.lastSeq };
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener('message', (ev) => {
      let f;
      try {
        f = JSON.parse(ev.data);
      } catch {
        return;
      }
      onFrame(f);
    });
    ws.addEventListener('close', (ev) => {
      clearInterval(state.heartbeat);
      state.ready = false;
      el.conn.textContent = T.offline;
      el.conn.classList.remove('online');
      if (state.ws !== ws) return; // replaced on purpose
      if (ev.code === 4401) {
        showHint(T.refused);
        return;
      }
      const wait = Math.min(30000, state.backoff) * (0.75 + Math.random() * 0.5);
      state.backoff = Math.min(30000, state.backoff * 2);
      setTimeout(connect, wait);
    });
  }
  function reconnectFresh() {
    const old = state.ws;
    state.ws = null;
    if (old) old.close();
    el.messages.textContent = '';
    state.lastSeq = 0;
    state.unacked.clear();
    setRunning(false);
    connect();
  }

  // ---------- composing ----------
  function newId(prefix) {
    const b = new Uint8Array(9);
    crypto.getRandomValues(b);
    return prefix + '_' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }
  function submit() {
    const text = el.input.value;
    const attachments = state.pending.filter((u) => u.upload_id);
    if (text.trim() === '' && attachments.length === 0) return;
    if (text.length > state.maxText) {
      showError(T.tooLong);
      return;
    }
    if (!state.ready) {
      showError(T.offline);
      return;
    }
    showError('');
    const id = newId('cm');
    const frame = { v: 1, type: 'user.message', id: newId('c'), client_msg_id: id, text, reply_to: null, attachments };
    state.shown.add(id);
    state.bubbles.set(id, renderUser(text, attachments));
    state.unacked.set(id, frame);
    rawSend(frame);
    el.input.value = '';
    autosize();
    state.pending = [];
    renderChips();
    setRunning(true);
    scrollDown();
  }
  function autosize() {
    el.input.style.height = 'auto';
    el.input.style.height = Math.min(el.input.scrollHeight + 2, window.innerHeight * 0.4) + 'px';
  }
  el.form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  el.input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      submit();
    }
  });
  el.input.addEventListener('input', autosize);
  el.stop.addEventListener('click', () => {
    send({ v: 1, type: 'stop', id: newId('c'), client_msg_id: newId('stop') });
  });

  function renderChips() {
    el.chips.textContent = '';
    for (const u of state.pending) {
      const chip = document.createElement('span');
      chip.className = 'chip' + (u.upload_id ? '' : ' uploading');
      chip.setAttribute('data-testid', 'upload-chip');
      chip.setAttribute('data-state', u.upload_id ? 'uploaded' : 'uploading');
      const name = document.createElement('span');
      name.textContent = '📎 ' + u.filename + ' · ' + (u.upload_id ? T.uploaded : T.uploading);
      chip.appendChild(name);
      const x = document.createElement('button');
      x.type = 'button';
      x.textContent = '×';
      x.setAttribute('aria-label', T.remove + ' ' + u.filename);
      x.addEventListener('click', () => {
        state.pending = state.pending.filter((p) => p !== u);
        renderChips();
      });
      chip.appendChild(x);
      el.chips.appendChild(chip);
    }
  }
  /** The refusal of POST /api/uploads in the page's language (the server's `error` is for logs). */
  function uploadErrorText(status, body) {
    if (status === 413) return T.uploadTooLarge(Math.round((Number(body.limit_bytes) || 50 * 1024 * 1024) / (1024 * 1024)));
    if (status === 401) return T.uploadSignin;
    if (status === 403) return T.uploadRefused;
    return T.uploadBad + ' (HTTP ' + status + ')';
  }
  el.upload.addEventListener('change', async () => {
    const files = Array.from(el.upload.files || []);
    el.upload.value = '';
    for (const file of files) {
      const entry = { upload_id: null, filename: file.name };
      state.pending.push(entry);
      renderChips();
      try {
        const fd = new FormData();
        fd.append('file', file, file.name);
        const res = await fetch('/api/uploads', { method: 'POST', body: fd, credentials: 'same-origin' });
        const body = await res.json().catch(() => ({}));
        if (!res.ok) throw new Error(uploadErrorText(res.status, body));
        Object.assign(entry, body);
      } catch (err) {
        state.pending = state.pending.filter((p) => p !== entry);
        showError(T.uploadFailed + file.name + ' — ' + (err?.message ? err.message : ''));
      }
      renderChips();
    }
  });

  // ---------- sign-in ----------
  function showHint(text) {
    el.hint.textContent = text;
    el.hint.classList.remove('hidden');
  }
  async function post(path, body) {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    return { ok: res.ok, body: await res.json().catch(() => ({})) };
  }
  // The sign-in screen (demo identities off): a link's token pasted, or the link itself.
  function showSignin() {
    const box = $('signin');
    $('signin-title').textContent = T.signinTitle;
    $('signin-text').textContent = T.signinText;
    $('signin-submit').textContent = T.signinSubmit;
    $('signin-token').placeholder = T.signinToken;
    $('signin-token-label').textContent = T.signinToken;
    box.classList.remove('hidden');
    el.form.classList.add('hidden');
    $('signin-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const raw = $('signin-token').value.trim();
      const m = /token=([^&\s]+)/.exec(raw);
      const token = m ? decodeURIComponent(m[1]) : raw;
      if (!token) return;
      const r = await post('/api/web/signin', { token });
      if (!r.ok) {
        showHint(T.refused);
        return;
      }
      box.classList.add('hidden');
      el.hint.classList.add('hidden');
      el.form.classList.remove('hidden');
      el.me.textContent = r.body.user.name;
      connect();
    });
  }
  async function init() {
    const m = /(?:^#|&)(token|signin)=([^&]+)/.exec(location.hash);
    if (m) {
      // Remove the token / single-use link from the address bar (and history) before anything else.
      history.replaceState(null, '', location.pathname + location.search);
      const value = decodeURIComponent(m[2]);
      const r = await post('/api/web/signin', m[1] === 'signin' ? { link: value } : { token: value });
      if (!r.ok) showHint(T.refused);
    }
    const cfg = await (await fetch('/api/web/config', { credentials: 'same-origin' })).json();
    let me = cfg.me;
    if (Array.isArray(cfg.demo) && cfg.demo.length > 0) {
      el.demoWrap.classList.remove('hidden');
      for (const c of cfg.demo) {
        const o = document.createElement('option');
        o.value = c.contact_key;
        o.textContent = c.name + ' (' + c.contact_key + ')';
        el.demoSelect.appendChild(o);
      }
      if (!me) {
        const r = await post('/api/web/signin', { demo: cfg.demo[0].contact_key });
        if (r.ok) me = r.body.user;
      }
      if (me) el.demoSelect.value = me.contact_key;
      el.demoSelect.addEventListener('change', async () => {
        const r = await post('/api/web/signin', { demo: el.demoSelect.value });
        if (r.ok) {
          el.me.textContent = r.body.user.name;
          reconnectFresh();
        }
      });
    }
    if (!me) {
      showSignin();
      return;
    }
    el.me.textContent = me.name;
    el.signout.classList.remove('hidden');
    el.signout.addEventListener('click', async () => {
      await post('/api/web/signout', {});
      location.reload();
    });
    connect();
  }
  init().catch(() => showHint(T.failed));
})();

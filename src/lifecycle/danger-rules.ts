/**
 * The danger scan's rule set
 * (R-PRE-07). Every rule is documented in docs/danger-scan.md; ids are stable.
 *
 * A rule reads one comment-stripped source file (`stripComments`) of one language and returns
 * the offsets it fires at. Patterns are deliberately simple (regular expressions plus a
 * balanced-parenthesis reader): a scan is advice for the author and a gate for the obvious,
 * not a sandbox.
 */
import { callArgs, firstArg, isPlainLiteral, matchIndexes, stringLiterals } from './scan-text.ts';
import type { ScanLang } from './strip-comments.ts';
import { CAPABILITY_RULE } from './danger-capability.ts';
import { climbOutHits, platformSecretHits } from './danger-escape.ts';

/** How bad a finding is; only `critical` blocks a create/edit (R-PRE-07). */
export type DangerSeverity = 'critical' | 'high' | 'medium' | 'low';

/** Where a rule fired: an offset in the file. */
export interface RuleHit {
  index: number;
}

/** One rule of the scan. */
export interface DangerRule {
  /** Stable id, e.g. `shell.interpolated`. */
  id: string;
  severity: DangerSeverity;
  /** Message shown to the author (zh-CN default, English available). */
  message: { 'zh-CN': string; en: string };
  /**
   * Offsets where the rule fires in comment-stripped `code` of language `lang`. The scan calls
   * it on the comment-stripped text and on its normalized form (`normalize-code.ts`, same
   * lines); `original` is then the comment-stripped text (rules comparing the two use it).
   * `normalizedOnly` rules are called on the normalized form only.
   */
  find(code: string, lang: ScanLang, original?: string): RuleHit[];
  /** True when the rule reads only the normalized code (it needs `original`). */
  normalizedOnly?: boolean;
}

const at = (xs: { index: number }[]): RuleHit[] => xs.map(({ index }) => ({ index }));

// ---------------------------------------------------------------- shell calls

/** A call that runs a shell command line, and whether its command is interpolated. */
interface ShellCall {
  index: number;
  interpolated: boolean;
}

/** Names bound to the `child_process` module and aliases of its functions in a JS/TS file. */
function childProcessBindings(code: string): { namespaces: string[]; fns: Map<string, string> } {
  const namespaces: string[] = [];
  const fns = new Map<string, string>();
  const mod = `['"](?:node:)?child_process['"]`;
  for (const { m } of matchIndexes(code, new RegExp(String.raw`import\s+(?:\*\s+as\s+)?([\w$]+)\s+from\s+${mod}`)))
    namespaces.push(m[1] ?? '');
  for (const { m } of matchIndexes(
    code,
    new RegExp(String.raw`(?:const|let|var)\s+([\w$]+)\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*${mod}\s*\)`),
  ))
    namespaces.push(m[1] ?? '');
  const named = [
    ...matchIndexes(code, new RegExp(String.raw`import\s*(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*${mod}`)),
    ...matchIndexes(code, new RegExp(String.raw`(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*${mod}\s*\)`)),
  ];
  for (const { m } of named) {
    for (const part of (m[1] ?? '').split(',')) {
      const [orig, alias] = part.split(/\s+as\s+|\s*:\s*/).map((s) => s.trim());
      if (orig) fns.set(alias || orig, orig);
    }
  }
  return { namespaces, fns };
}

const JS_SHELL_FNS = new Set(['exec', 'execSync']);
const JS_SPAWN_FNS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync']);

function jsShellCalls(code: string): ShellCall[] {
  const { namespaces, fns } = childProcessBindings(code);
  const calls: { index: number; fn: string; open: number }[] = [];
  const ns = [...namespaces.map((n) => n.replace(/\$/g, '\\$')), String.raw`require\s*\(\s*['"](?:node:)?child_process['"]\s*\)`];
  for (const { index, m } of matchIndexes(code, new RegExp(String.raw`(?:${ns.join('|')})\s*\.\s*(\w+)\s*\(`))) {
    calls.push({ index, fn: m[1] ?? '', open: index + m[0].length - 1 });
  }
  for (const [alias, orig] of fns) {
    for (const { index, m } of matchIndexes(code, new RegExp(String.raw`(?<![\w$.])${alias.replace(/\$/g, '\\$')}\s*\(`))) {
      calls.push({ index, fn: orig, open: index + m[0].length - 1 });
    }
  }
  const out: ShellCall[] = [];
  for (const c of calls) {
    const args = callArgs(code, c.open);
    if (JS_SHELL_FNS.has(c.fn)) out.push({ index: c.index, interpolated: !isPlainLiteral(firstArg(args), 'js') });
    else if (JS_SPAWN_FNS.has(c.fn) && /\bshell\s*:\s*(?:true|['"`])/.test(args)) {
      const rest = args.slice(firstArg(args).length);
      const argv = rest.match(/^\s*,\s*(\[[^\]]*\])/)?.[1];
      out.push({
        index: c.index,
        interpolated: !isPlainLiteral(firstArg(args), 'js') || (argv !== undefined && !isPlainLiteral(argv, 'js')),
      });
    }
  }
  return out;
}

/** Python shell-running functions by module: `true` when they always use a shell. */
const PY_SHELL_FNS: Record<string, Record<string, boolean>> = {
  os: { system: true, popen: true },
  subprocess: { run: false, call: false, check_call: false, check_output: false, Popen: false, getoutput: true, getstatusoutput: true },
  asyncio: { create_subprocess_shell: true },
};

function pyShellCalls(code: string): ShellCall[] {
  const calls: { index: number; open: number; always: boolean }[] = [];
  const qualified = /(?<![\w.])(os|subprocess|asyncio)\s*\.\s*(\w+)\s*\(/;
  for (const { index, m } of matchIndexes(code, qualified)) {
    const always = PY_SHELL_FNS[m[1] ?? '']?.[m[2] ?? ''];
    if (always !== undefined) calls.push({ index, open: index + m[0].length - 1, always });
  }
  // `from subprocess import run as sh_run` → bare calls of the alias
  for (const { m } of matchIndexes(code, /\bfrom\s+(os|subprocess|asyncio)\s+import\s+(?:\(([\w\s,]+)\)|([\w \t,]+))/)) {
    for (const part of (m[2] ?? m[3] ?? '').split(',')) {
      const [orig, alias] = part.trim().split(/\s+as\s+/);
      const always = orig ? PY_SHELL_FNS[m[1] ?? '']?.[orig] : undefined;
      if (always === undefined) continue;
      for (const call of matchIndexes(code, new RegExp(String.raw`(?<![\w.])${alias ?? orig}\s*\(`))) {
        calls.push({ index: call.index, open: call.index + call.m[0].length - 1, always });
      }
    }
  }
  const out: ShellCall[] = [];
  for (const c of calls) {
    const args = callArgs(code, c.open);
    if (!c.always && !/\bshell\s*=\s*True\b/.test(args)) continue;
    out.push({ index: c.index, interpolated: !isPlainLiteral(firstArg(args), 'py') });
  }
  return out;
}

function shShellCalls(code: string): ShellCall[] {
  return matchIndexes(code, /(?<![\w-])(?:ba|z|da)?sh\s+-c\s+("[^"]*"|'[^']*'|\S+)/).map(({ index, m }) => ({
    index,
    interpolated: !(m[1] ?? '').startsWith("'") && (m[1] ?? '').includes('$'),
  }));
}

function shellCalls(code: string, lang: ScanLang): ShellCall[] {
  return lang === 'js' ? jsShellCalls(code) : lang === 'py' ? pyShellCalls(code) : shShellCalls(code);
}

// ---------------------------------------------------------------- eval

const EVAL_RE: Record<ScanLang, RegExp> = {
  js: /(?<![\w$.])(?:eval|(?:globalThis|window|global)\s*\.\s*eval)\s*\(|(?<![\w$.])(?:new\s+)?Function\s*\(|\bvm\s*\.\s*(?:runIn\w+|compileFunction)\s*\(|new\s+vm\s*\.\s*Script\s*\(/,
  py: /(?<![\w.])(?:exec|eval|compile)\s*\(/,
  sh: /(?<![\w-])eval\s/,
};

// ---------------------------------------------------------------- writes

/** Literal paths a file-writing call of `lang` targets. */
function writtenPaths(code: string, lang: ScanLang): { index: number; value: string }[] {
  const out: { index: number; value: string }[] = [];
  const lit = String.raw`[rbRB]?(['"\`])([^'"\`\n]*)\1`;
  const patterns: Record<ScanLang, RegExp[]> = {
    js: [
      new RegExp(
        String.raw`\b(?:writeFile|appendFile|createWriteStream|mkdir|rm|rmdir|unlink|rename|copyFile|cp|symlink|chmod|chown|truncate)(?:Sync)?\s*\(\s*${lit}`,
      ),
    ],
    py: [
      new RegExp(String.raw`(?<![\w.])open\s*\(\s*${lit}\s*,\s*[rbRB]?['"][^'"]*[wax+]`),
      new RegExp(
        String.raw`\b(?:os\s*\.\s*(?:remove|unlink|rmdir|removedirs|makedirs|mkdir|rename|replace|chmod|chown|symlink)|shutil\s*\.\s*(?:copy\w*|move|rmtree))\s*\((?:[^()]*,\s*)?${lit}`,
      ),
      new RegExp(
        String.raw`Path\s*\(\s*${lit}\s*\)\s*\.\s*(?:write_text|write_bytes|mkdir|unlink|rmdir|touch|open\s*\(\s*['"][^'"]*[wax+])`,
      ),
    ],
    sh: [
      /(?<![<>&\d])>>?\s*(["']?)([^\s;|&"')]+)\1/,
      /(?<![\w-])(?:cp|mv|rm|tee|install|ln|chmod|chown|mkdir|touch|dd)\b[^\n;|&]*?\s(["']?)((?:\/|~|\.\.\/)[^\s;|&"']*)\1/,
    ],
  };
  for (const re of patterns[lang]) for (const { index, m } of matchIndexes(code, re)) out.push({ index, value: m[m.length - 1] ?? '' });
  return out;
}

/** System locations: writing there is critical. */
const SYSTEM_PATH =
  /^(?:\/(?:etc|usr|bin|sbin|lib|lib64|boot|root|sys|proc|var\/spool\/cron|var\/lib)(?:\/|$)|\/$|~\/\.(?:ssh|bashrc|profile|bash_profile|zshrc|config\/autostart))/;
/** Writes that never leave the process: the null device and the standard streams. */
const HARMLESS_PATH = /^\/dev\/(?:null|stdout|stderr|fd\/[12])$/;

function outsidePath(p: string): boolean {
  return (
    !HARMLESS_PATH.test(p) && (p.startsWith('/') || p.startsWith('~') || /(?:^|[\\/])\.\.(?:[\\/]|$)/.test(p) || /^[A-Za-z]:[\\/]/.test(p))
  );
}

// ---------------------------------------------------------------- environment and credentials

const ENV_DUMP: Record<ScanLang, RegExp> = {
  js: /(?<!\}\s*=\s*)\bprocess\s*\.\s*env\b(?!\s*(?:\.|\[|\?\.))|\bDeno\s*\.\s*env\s*\.\s*toObject\s*\(/,
  py: /\bos\s*\.\s*environ\b(?!\s*(?:\[|\.\s*(?:get|setdefault|pop)\s*\())|\bos\s*\.\s*getenv\s*\(\s*\)/,
  sh: /(?:^|[;&|]\s*|\$\(\s*|`)\s*(?:env|printenv|export\s+-p|set)\s*(?:$|[;|&>)`])/m,
};

const CREDENTIAL_FILE =
  /(?:^|[\s'"`/~])\.ssh(?:\/|['"`]|$)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\/etc\/(?:shadow|gshadow|sudoers)\b|\.aws\/credentials|(?:^|[/'"`])\.netrc\b|\.git-credentials|(?:^|[/'"`])\.pgpass\b|\.kube\/config|\.docker\/config\.json|\/proc\/(?:self|\d+)\/environ/;

// ---------------------------------------------------------------- network

const METADATA_HOST = /169\.254\.169\.254|metadata\.google\.internal|100\.100\.100\.200|\[?fd00:ec2::254\]?/;
const PRIVATE_HOST = String.raw`(?:10(?:\.\d{1,3}){3}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|192\.168(?:\.\d{1,3}){2}|127(?:\.\d{1,3}){3}|169\.254(?:\.\d{1,3}){2}|0\.0\.0\.0|localhost|\[::1?\])`;
const PRIVATE_URL = new RegExp(
  String.raw`\b(?:https?|wss?|ftp|redis|mysql|postgres(?:ql)?|mongodb)://(?:[^/\s'"\`@]*@)?${PRIVATE_HOST}(?![\w.-])`,
);
const PRIVATE_LITERAL = new RegExp(String.raw`^${PRIVATE_HOST}(?::\d+)?$`);
const NET_CALL =
  /\b(?:fetch|got|urlopen|create_connection|connect|request)\s*\(|\b(?:axios|http|https|net|tls|dgram|socket|requests|httpx|aiohttp|urllib\w*)\s*\.\s*\w+\s*\(|\b(?:curl|wget|nc|ncat|telnet|ssh)\s/;

// ---------------------------------------------------------------- obfuscation

const DECODE: Record<ScanLang, RegExp> = {
  js: /\batob\s*\(|Buffer\s*\.\s*from\s*\([^)]*['"](?:base64|hex|base64url)['"]|String\s*\.\s*fromCharCode\s*\(|\bunescape\s*\(|decodeURIComponent\s*\(\s*['"`]%/,
  py: /\b(?:b64decode|b32decode|b85decode|a85decode|urlsafe_b64decode|unhexlify|fromhex|decompress)\s*\(|\bcodecs\s*\.\s*decode\s*\(|\bmarshal\s*\.\s*loads\s*\(/,
  sh: /\bbase64\s+(?:-d|-D|--decode)\b|\bxxd\s+-r\b|\bopenssl\s+(?:enc|base64)\b[^\n]*\s-d\b/,
};
const RUN_DECODED_SH = /(?:\|\s*(?:ba|z|da)?sh\b|\|\s*(?:python3?|perl|node|ruby)\b|\beval\b|\bsource\s+<\()/;

// ---------------------------------------------------------------- the rules

/** Every rule of the danger scan, most severe first (docs/danger-scan.md). */
export const DANGER_RULES: readonly DangerRule[] = [
  {
    id: 'shell.interpolated',
    severity: 'critical',
    message: {
      'zh-CN': '通过 shell 执行拼接/插值出来的命令（可被注入任意命令）；请改用参数数组且不启用 shell',
      en: 'runs a shell command built from interpolated or concatenated values (command injection); pass an argument array without a shell',
    },
    find: (code, lang) => at(shellCalls(code, lang).filter((c) => c.interpolated)),
  },
  {
    id: 'shell.remote_pipe',
    severity: 'critical',
    message: { 'zh-CN': '下载远程内容并直接交给解释器执行', en: 'downloads remote content and pipes it straight into an interpreter' },
    find: (code) =>
      at(
        matchIndexes(
          code,
          /\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\b(?:curl|wget)\b[^\n|]*\|\s*(?:python3?|perl|node|ruby)\b/,
        ),
      ),
  },
  {
    id: 'code.eval',
    severity: 'critical',
    message: {
      'zh-CN': '动态执行代码（eval / new Function / exec / compile）；请直接写出要执行的逻辑',
      en: 'evaluates code at run time (eval / new Function / exec / compile); write the logic out instead',
    },
    find(code, lang) {
      const dynImport =
        lang === 'py'
          ? matchIndexes(code, /(?<![\w.])(?:__import__|importlib\s*\.\s*import_module)\s*\(/).filter(
              ({ index, m }) => !isPlainLiteral(firstArg(callArgs(code, index + m[0].length - 1)), 'py'),
            )
          : [];
      return at([...matchIndexes(code, EVAL_RE[lang]), ...dynImport]);
    },
  },
  CAPABILITY_RULE,
  {
    id: 'obfuscation.decode_exec',
    severity: 'critical',
    message: {
      'zh-CN': '解码后执行的隐藏代码（base64/hex/字符码 解码并交给 eval/exec/shell）',
      en: 'hidden payload: content decoded (base64, hex, char codes) and then executed',
    },
    find(code, lang) {
      if (lang === 'sh') {
        return at(matchIndexes(code, /^.*$/m).filter(({ m }) => DECODE.sh.test(m[0]) && RUN_DECODED_SH.test(m[0])));
      }
      const runs = EVAL_RE[lang].test(code) || shellCalls(code, lang).length > 0;
      return runs ? at(matchIndexes(code, DECODE[lang])) : [];
    },
  },
  {
    id: 'fs.write_system',
    severity: 'critical',
    message: {
      'zh-CN':
        '写入系统位置（/etc、/usr、~/.ssh 等），或用 .. 拼出工作区以外的路径、指向 role-skills/（为其他角色植入技能）；请只在 runtime_context.workspace_dir 之下读写',
      en: 'writes to a system location (/etc, /usr, ~/.ssh, …), or builds a path that climbs out of the workspace with .. or names role-skills/ (planting skills for another role); stay under runtime_context.workspace_dir',
    },
    find: (code, lang) => at([...writtenPaths(code, lang).filter((p) => SYSTEM_PATH.test(p.value)), ...climbOutHits(code, lang)]),
  },
  {
    id: 'secrets.credential_file',
    severity: 'critical',
    message: {
      'zh-CN':
        '读取凭据文件或平台密钥（~/.ssh、/etc/shadow、.aws/credentials、/proc/<pid>/environ、SKILLGATE_ 环境变量、数据目录的 secret.key 等）；技能需要的值请用技能参数',
      en: "touches credential files or the platform's keys (~/.ssh, /etc/shadow, .aws/credentials, /proc/<pid>/environ, SKILLGATE_ variables, the data dir's secret.key, …); pass what the skill needs as parameters",
    },
    find: (code, lang) =>
      at([
        ...stringLiterals(code).filter((s) => CREDENTIAL_FILE.test(s.value)),
        ...matchIndexes(code, /(?<![\w'"`])(?:~\/\.ssh|\/etc\/shadow)\b/),
        ...platformSecretHits(code, lang),
      ]),
  },
  {
    id: 'net.metadata',
    severity: 'critical',
    message: { 'zh-CN': '访问云主机元数据地址（可窃取实例凭据）', en: 'reaches the cloud metadata address (instance credentials)' },
    find: (code) => at(matchIndexes(code, METADATA_HOST)),
  },
  {
    id: 'fs.write_outside',
    severity: 'high',
    message: {
      'zh-CN': '写入工作区以外的路径（绝对路径、~ 或 ..）；请写到 runtime_context.workspace_dir 下',
      en: 'writes outside the workspace (absolute path, ~ or ..); write under runtime_context.workspace_dir',
    },
    find: (code, lang) => at(writtenPaths(code, lang).filter((p) => outsidePath(p.value) && !SYSTEM_PATH.test(p.value))),
  },
  {
    id: 'secrets.env_dump',
    severity: 'high',
    message: {
      'zh-CN': '整体读取环境变量（可能泄露平台密钥）；只读取需要的单个变量，密钥用技能参数',
      en: 'reads the whole environment (may leak platform secrets); read single variables, use skill parameters for secrets',
    },
    find: (code, lang) => at(matchIndexes(code, ENV_DUMP[lang])),
  },
  {
    id: 'net.private_address',
    severity: 'high',
    message: {
      'zh-CN': '向写死的内网/本机地址发起网络请求（10/8、172.16/12、192.168/16、127/8、localhost）',
      en: 'network call to a literal private or loopback address (10/8, 172.16/12, 192.168/16, 127/8, localhost)',
    },
    find(code) {
      const urls = matchIndexes(code, PRIVATE_URL).filter(({ m }) => !METADATA_HOST.test(m[0]));
      const bare = stringLiterals(code).filter((s) => {
        if (!PRIVATE_LITERAL.test(s.value)) return false;
        const lineStart = code.lastIndexOf('\n', s.index) + 1;
        const lineEnd = code.indexOf('\n', s.index);
        return NET_CALL.test(code.slice(lineStart, lineEnd === -1 ? undefined : lineEnd));
      });
      const shBare = matchIndexes(
        code,
        new RegExp(String.raw`\b(?:curl|wget|nc|ncat|telnet|ssh)\b[^\n]*?\s${PRIVATE_HOST}(?![\w.-])`),
      ).filter(({ m }) => !m[0].includes('://'));
      return at([...urls, ...bare, ...shBare]);
    },
  },
  {
    id: 'obfuscation.char_codes',
    severity: 'high',
    message: { 'zh-CN': '用字符码拼出字符串（常见的混淆手法）', en: 'builds strings from character codes (a common obfuscation)' },
    find(code, lang) {
      if (lang === 'sh') return [];
      const js = matchIndexes(code, /String\s*\.\s*fromCharCode\s*\(\s*(?:[\d\sx,a-fA-F]+|\.\.\.)/).filter(({ m, index }) => {
        const nums = m[0].split(',').length;
        const chained = (code.slice(index, index + 400).match(/fromCharCode/g) ?? []).length;
        return nums >= 6 || m[0].includes('...') || chained >= 3;
      });
      const py =
        lang === 'py'
          ? matchIndexes(
              code,
              /(?<![\w.])chr\s*\(\s*\d+\s*\)(?:\s*\+\s*chr\s*\(\s*\d+\s*\)){3,}|(?:''|"")\s*\.\s*join\s*\(\s*(?:map\s*\(\s*chr|chr\s*\()/,
            )
          : [];
      return at(lang === 'js' ? js : py);
    },
  },
  {
    id: 'obfuscation.blob',
    severity: 'medium',
    message: {
      'zh-CN': '代码中有很长的 base64/十六进制数据块；请把数据放进 references/ 并说明用途',
      en: 'long base64 / hex blob in code; keep data in references/ and say what it is',
    },
    find: (code) => at(matchIndexes(code, /[A-Za-z0-9+/]{256,}={0,2}|(?:[0-9a-fA-F]{2}){128,}|(?:\\x[0-9a-fA-F]{2}){64,}/)),
  },
  {
    id: 'shell.command',
    severity: 'low',
    message: {
      'zh-CN': '通过 shell 执行固定命令；能用库函数时请不用 shell',
      en: 'runs a fixed command through a shell; prefer a library call',
    },
    find: (code, lang) => at(shellCalls(code, lang).filter((c) => !c.interpolated)),
  },
];

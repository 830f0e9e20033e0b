/**
 * Danger-scan rules for capabilities reached indirectly (R-PRE-07; follow-up;
 * docs/danger-scan.md "Indirect capabilities"). They read the NORMALIZED code
 * (`normalize-code.ts`), so `'child' + '_process'`, `'\x63hild_process'` or
 * `Buffer.from('…','base64')` are seen whole, and they fail closed: code written from chat has
 * no honest reason to reach process spawning or code loading through a side door.
 *
 * `find(code, lang, original)` gets the normalized code and the comment-stripped original (same
 * lines); a rule that needs to tell "written plainly" from "assembled" compares the two.
 */
import type { DangerRule, RuleHit } from './danger-rules.ts';
import { callArgs, firstArg, isPlainLiteral, matchIndexes } from './scan-text.ts';

const at = (xs: { index: number }[]): RuleHit[] => xs.map(({ index }) => ({ index }));

/** `child_process` as a module-name literal (quotes of any kind, `node:` allowed). */
const CP_LIT = /(['"`])(?:node:)?child_process\1/;
/** Functions of child_process that start a process. */
const CP_FNS = 'exec|execSync|spawn|spawnSync|execFile|execFileSync|fork';

/** A literal program that runs code given in its arguments (a shell or an interpreter). */
const INTERPRETER =
  /^['"`](?:\/(?:usr\/)?(?:local\/)?bin\/)?(?:(?:ba|z|da|k|c|tc|fi)?sh|busybox|env|xargs|node|nodejs|deno|bun|python[\d.]*|perl|ruby|php|lua|pwsh|powershell|cmd(?:\.exe)?|osascript|awk|gawk)['"`]$/;

/** A program that runs code given inline after a flag (a shell, an interpreter, `find -exec`). */
const INLINE_HOST =
  /^['"`](?:\/(?:usr\/)?(?:local\/)?bin\/)?(?:(?:ba|z|da|k|c|tc|fi|a)?sh|busybox|env|xargs|nohup|timeout|nice|stdbuf|setsid|sudo|node|nodejs|deno|bun|python[\d.]*|perl|ruby|php|lua|pwsh|powershell|cmd(?:\.exe)?|osascript|awk|gawk|find)['"`]$/;
/** A literal flag that hands inline code to the program: `-c`, `-lc`, `-e`, `--eval`, `-exec`, `/c`, … */
const INLINE_FLAG = /(['"`])(?:-[a-zA-Z]*[ce]|--eval|--exec|-p|--print|-exec|-execdir|-ok|-okdir|\/[cC]|-Command|-EncodedCommand)\1/;

/**
 * True when a spawn's program is a shell/interpreter (or `find`, `env`, `xargs`) and a literal
 * inline-code flag appears in its argument text (R-PRE-07: `execFileSync('sh', ['-c', '…'])`).
 */
export function spawnsInlineCode(program: string, args: string): boolean {
  return INLINE_HOST.test(program.trim()) && INLINE_FLAG.test(args);
}

/** The text of the line of `code` holding `index`. */
function lineText(code: string, index: number): string {
  const start = code.lastIndexOf('\n', index - 1) + 1;
  const end = code.indexOf('\n', index);
  return code.slice(start, end === -1 ? undefined : end);
}
/** Text of the line of `code` that has the same number as the line of `index` in `other`. */
function sameLine(other: string, index: number, code: string): string {
  let line = 0;
  for (let i = 0; i < index; i++) if (other.charCodeAt(i) === 10) line++;
  return code.split('\n')[line] ?? '';
}

/** JS: the ways to reach process spawning or code loading without naming them plainly. */
function jsIndirect(code: string, original: string): RuleHit[] {
  const hits: { index: number }[] = [];
  const push = (re: RegExp): void => void hits.push(...matchIndexes(code, re));
  /** `code` with the text of canonical literals blanked (same offsets): for identifier searches. */
  const bare = code.replace(/'(?:[^'\\\n]|\\.)*'/g, (lit) => `'${' '.repeat(lit.length - 2)}'`);
  // process internals that hand out modules or native code
  push(/\b(?:getBuiltinModule|_linkedBinding|dlopen|mainModule)\b|(?<![\w$])process\s*(?:\.\s*|\[\s*')binding\b/);
  push(/(?<![\w$.])process\s*\[\s*(?!')/); // process[<computed key>]
  hits.push(...matchIndexes(bare, /(?<![\w$.]|\}\s*=\s*)process\s*(?=[;,)\]}\n]|$)/)); // process passed around as a value
  // the module system itself
  push(
    /(?<![\w$.])module\s*(?:\.\s*|\[\s*')(?:constructor|require|_load|_compile)\b|\bModule\s*(?:\.\s*|\[\s*')(?:_load|_compile|_resolveFilename|wrap|prototype)\b|\._compile\s*\(/,
  );
  push(/\b(?:require|import)\s*\(\s*'(?:node:)?(?:vm|module|inspector|v8|wasi)'\s*\)|\bfrom\s*'(?:node:)?(?:vm|module|inspector|v8|wasi)'/);
  // dynamic module names: require(x), import(x), require.call/apply
  for (const { index, m } of matchIndexes(code, /(?<![\w$.])(require|import)\s*\(/)) {
    const arg = firstArg(callArgs(code, index + m[0].length - 1));
    if (!isPlainLiteral(arg, 'js')) hits.push({ index });
  }
  push(/(?<![\w$.])require\s*(?:\.\s*(?:call|apply|bind|cache|main)\b|\[)|(?<![\w$.])(?:const|let|var)\s+[\w$]+\s*=\s*require\s*[;\n,)]/);
  // modules loaded from outside the skill or from inline source: data:, http(s):, file:, absolute paths
  push(/(?<![\w$.])(?:require|import)\s*\(\s*'(?:data:|https?:|blob:|file:|\/|~)|\bfrom\s*'(?:data:|https?:|blob:|file:|\/|~)/);
  // global lookups by computed key: globalThis[...], global[...], window[...], self[...]
  push(/(?<![\w$.])(?:globalThis|global|window|self)\s*\[\s*(?!'(?!(?:require|process|eval|Function|module|Buffer)')[^']*'\s*\])/);
  // globals and the Function constructor handed around as values: Reflect.get(globalThis, 'eval'), const F = Function
  push(
    /\bReflect\s*\.\s*(?:get|apply|construct|getOwnPropertyDescriptor)\s*\(\s*(?:globalThis|global|window|self|process|module|require|Function|eval)\b|\bObject\s*\.\s*(?:getOwnPropertyDescriptors?|entries|values|keys|assign)\s*\(\s*(?:globalThis|global|process|module)\s*[,)]/,
  );
  hits.push(...matchIndexes(bare, /(?<![\w$.])globalThis(?![\w$])(?!\s*(?:\.|\[|\?\.))|(?:=|\(|,)\s*Function\s*(?=[;,)\n]|$)/));
  // the Function constructor reached through any function's .constructor
  push(
    /(?<!\bthis\s*)\.\s*constructor\b(?!\s*(?:\.\s*name\b|[=!]==?))|\[\s*'constructor'\s*\]|\bReflect\s*\.\s*(?:construct|apply)\s*\(\s*(?:Function|eval)\b/,
  );
  // eval as a value, not a call: (0, eval)(x), const e = eval
  hits.push(...matchIndexes(bare, /(?<![\w$.])eval(?![\w$])(?!\s*\()/));
  // worker_threads running code from a string
  if (/worker_threads/.test(code)) push(/\beval\s*:\s*true\b/);
  // bracket access to a spawning function by a literal name: m['exec'](…)
  push(new RegExp(String.raw`\[\s*'(?:${CP_FNS})'\s*\]`));
  // child_process assembled (not written plainly on that line) or reached other than by a plain import
  for (const { index } of matchIndexes(code, CP_LIT)) {
    if (!CP_LIT.test(sameLine(code, index, original))) hits.push({ index });
    const line = lineText(code, index);
    const plainImport =
      /^\s*import\s+(?:\*\s*as\s+[\w$]+|[\w$]+|\{[^}]*\}|[\w$]+\s*,\s*\{[^}]*\})\s+from\s*(['"`])(?:node:)?child_process\1\s*;?\s*$/.test(
        line,
      ) ||
      /(?:const|let|var)\s+(?:[\w$]+|\{[^}]*\})\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*(['"`])(?:node:)?child_process\1\s*\)/.test(
        line,
      ) ||
      new RegExp(String.raw`require\s*\(\s*(['"\`])(?:node:)?child_process\1\s*\)\s*\.\s*(?:${CP_FNS})\s*\(`).test(line);
    if (!plainImport) hits.push({ index });
  }
  // a child_process namespace used other than `ns.fn(…)`, and any spawning call with a computed program
  const namespaces = [
    ...code.matchAll(
      /(?:import\s+(?:\*\s*as\s+)?|(?:const|let|var)\s+)([\w$]+)\s*(?:from|=\s*(?:await\s+)?(?:require|import)\s*\()\s*(['"`])(?:node:)?child_process\2/g,
    ),
  ].map((m) => m[1]!);
  for (const ns of namespaces) {
    const esc = ns.replace(/\$/g, '\\$');
    for (const { index } of matchIndexes(bare, new RegExp(String.raw`(?<![\w$.])${esc}(?![\w$])`))) {
      const rest = code.slice(index + ns.length, index + ns.length + 40);
      const decl = /^\s*(?:from|=\s*(?:await\s+)?(?:require|import)\b)/.test(rest);
      if (!decl && !new RegExp(String.raw`^\s*\.\s*(?:${CP_FNS})\s*\(`).test(rest)) hits.push({ index });
    }
  }
  const named = [
    ...code.matchAll(
      /(?:import\s*\{([^}]*)\}\s*from|(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s+)?(?:require|import)\s*\()\s*(['"`])(?:node:)?child_process\3/g,
    ),
  ].flatMap((m) =>
    (m[1] ?? m[2] ?? '')
      .split(',')
      .filter((p) => !/^\s*type\s/.test(p)) // TypeScript type-only names
      .map((p) => p.split(/\s+as\s+|\s*:\s*/).map((s) => s.trim())),
  );
  const spawners = new Set<string>(
    namespaces.map((n) => `${n.replace(/\$/g, '\\$')}\\s*\\.\\s*(?:spawn|spawnSync|execFile|execFileSync|fork)`),
  );
  spawners.add(String.raw`require\s*\(\s*['"\`](?:node:)?child_process['"\`]\s*\)\s*\.\s*(?:spawn|spawnSync|execFile|execFileSync|fork)`);
  for (const [orig, alias] of named) {
    if (!orig) continue;
    if (!new RegExp(`^(?:${CP_FNS})$`).test(orig))
      hits.push(...matchIndexes(bare, new RegExp(String.raw`(?<![\w$.])${orig.replace(/\$/g, '\\$')}(?![\w$])`))); // unknown or computed names
    if (/^(?:spawn|spawnSync|execFile|execFileSync|fork)$/.test(orig)) spawners.add((alias || orig).replace(/\$/g, '\\$'));
  }
  for (const s of spawners) {
    for (const { index, m } of matchIndexes(code, new RegExp(String.raw`(?<![\w$.])${s}\s*\(`))) {
      const args = callArgs(code, index + m[0].length - 1);
      const program = firstArg(args);
      const argv = args.slice(program.length).match(/^\s*,\s*(\[[^\]]*\]|[^,]+)/)?.[1];
      if (!isPlainLiteral(program, 'js') || (INTERPRETER.test(program) && argv !== undefined && !isPlainLiteral(argv, 'js')))
        hits.push({ index });
      else if (spawnsInlineCode(program, args.slice(program.length)) || /\bshell\s*:\s*(?!false\b|undefined\b)[^,}\s]/.test(args))
        hits.push({ index });
    }
  }
  // worker threads: code loaded from a computed path, a remote/absolute URL, or a string (eval: true)
  for (const { index, m } of matchIndexes(code, /\bnew\s+(?:[\w$]+\s*\.\s*)?Worker\s*\(/)) {
    const args = callArgs(code, index + m[0].length - 1);
    const first = firstArg(args);
    const url = /^new\s+URL\s*\(\s*('(?:[^'\\\n]|\\.)*')\s*,\s*import\s*\.\s*meta\s*\.\s*url\s*\)$/.exec(first)?.[1];
    const literal = url ?? (isPlainLiteral(first, 'js') ? first : undefined);
    if (literal === undefined || /^['"`](?:data:|https?:|blob:|file:|\/|~|\.\.\/)/.test(literal) || /\beval\s*:\s*(?!false\b)/.test(args))
      hits.push({ index });
  }
  // functions imported by name used other than as a call (passed around, aliased)
  for (const [orig, alias] of named) {
    const name = (alias || orig || '').replace(/\$/g, '\\$');
    if (!name) continue;
    for (const { index } of matchIndexes(bare, new RegExp(String.raw`(?<![\w$.])${name}(?![\w$])(?!\s*\()`))) {
      if (!CP_LIT.test(lineText(code, index))) hits.push({ index });
    }
  }
  return at(hits);
}

/** Python modules whose attributes start processes or load code. */
const PY_DANGER_MODULES = 'os|posix|subprocess|pty|builtins|__builtins__|importlib|sys|ctypes|runpy|code|codeop|multiprocessing|shutil';
const PY_DANGER_ATTRS =
  'system|popen|popen2|spawn\\w*|exec\\w*|posix_spawn\\w*|fork\\w*|Popen|run|call|check_call|check_output|getoutput|getstatusoutput|eval|compile|__import__|import_module|__builtins__|__globals__|__subclasses__|__code__|loads';

/** Python: the ways to reach process spawning or code loading without naming them plainly. */
function pyIndirect(code: string): RuleHit[] {
  const hits: { index: number }[] = [];
  const push = (re: RegExp): void => void hits.push(...matchIndexes(code, re));
  push(new RegExp(String.raw`(?<![\w.])getattr\s*\(\s*(?:${PY_DANGER_MODULES})\s*,`));
  push(new RegExp(String.raw`(?<![\w.])getattr\s*\([^,()]*,\s*'(?:${PY_DANGER_ATTRS})'`));
  push(/(?<![\w.])getattr\s*\(\s*__import__\s*\(/);
  // a dangerous module's namespace read as a dict (vars(os)['system'], os.__dict__[…]) or through
  // getattr, also under an alias (`import os as o`); vars(obj) / self.__dict__ of plain objects stay quiet
  const mods = [
    PY_DANGER_MODULES,
    ...[...code.matchAll(new RegExp(String.raw`\bimport\s+(?:${PY_DANGER_MODULES})\s+as\s+(\w+)`, 'g'))].map((m) => m[1]!),
  ].join('|');
  push(
    new RegExp(
      String.raw`(?<![\w.])vars\s*\(\s*(?:${mods})\s*\)|(?<![\w.])(?:${mods})\s*\.\s*__dict__\b|(?<![\w.])getattr\s*\(\s*(?:${mods})\s*,`,
    ),
  );
  push(
    /(?<![\w])__builtins__\b|\bbuiltins\s*\.\s*(?:exec|eval|compile|__import__|getattr)\b|(?<![\w.])(?:globals|vars|locals)\s*\(\s*\)\s*\[|\.\s*__(?:subclasses|globals|code|builtins)__\b/,
  );
  push(/\bfrom\s+(?:os|posix|subprocess|pty|builtins|importlib)\s+import\s+\*/);
  push(/\bfrom\s+(?:os|posix)\s+import\s+(?:\([^)]*|[^\n]*)\b(?:exec\w*|spawn\w*|posix_spawn\w*|fork\w*)\b/); // from os import execv
  push(
    /(?<![\w.])sys\s*\.\s*modules\s*\[|(?<![\w.])(?:import\s+(?:ctypes|pty|runpy|code|cffi)\b|from\s+(?:ctypes|pty|runpy|cffi)\s+import)|\bpty\s*\.\s*spawn\b|\bos\s*\.\s*(?:exec\w+|spawn\w+|posix_spawn\w*|fork\w*)\s*\(/,
  );
  push(/(?<![\w.])(?:__import__|import_module)\s*\(\s*'(?:posix|pty|ctypes|runpy)'/);
  push(
    /\bimportlib\s*\.\s*(?:__import__|util|machinery|reload)\b|\b(?:pickle|cPickle|_pickle|dill|marshal|shelve|jsonpickle)\s*\.\s*(?:loads?|open|Unpickler)\s*\(|\bfrom\s+(?:pickle|marshal|dill)\s+import\b/,
  );
  // subprocess calls whose program is computed, or an interpreter given computed arguments
  const fromImported = [...code.matchAll(/\bfrom\s+subprocess\s+import\s+(?:\(([\w\s,]+)\)|([\w \t,]+))/g)].flatMap((m) =>
    (m[1] ?? m[2] ?? '')
      .split(',')
      .map((p) => p.trim().split(/\s+as\s+/))
      .filter(([o]) => /^(?:run|call|check_call|check_output|Popen)$/.test(o ?? ''))
      .map(([o, a]) => a ?? o ?? ''),
  );
  const callee = [
    'subprocess\\s*\\.\\s*(?:run|call|check_call|check_output|Popen)',
    'asyncio\\s*\\.\\s*create_subprocess_exec',
    ...fromImported,
  ].join('|');
  for (const { index, m } of matchIndexes(code, new RegExp(String.raw`(?<![\w.])(?:${callee})\s*\(`))) {
    const args = callArgs(code, index + m[0].length - 1);
    const arg = firstArg(args).trim();
    const list = arg.startsWith('[') || arg.startsWith('(');
    const program = list ? firstArg(arg.slice(1, -1)) : arg;
    const argv = list ? arg : args.slice(arg.length);
    if (!isPlainLiteral(program, 'py') || (INTERPRETER.test(program) && !isPlainLiteral(`[${list ? arg.slice(1, -1) : ''}]`, 'py')))
      hits.push({ index });
    else if (!list && INTERPRETER.test(program) && /\S/.test(argv)) hits.push({ index });
    else if (spawnsInlineCode(program, arg)) hits.push({ index });
  }
  return at(hits);
}

/** The critical rule for indirect capabilities (docs/danger-scan.md). */
export const CAPABILITY_RULE: DangerRule = {
  id: 'code.indirect_capability',
  severity: 'critical',
  normalizedOnly: true,
  message: {
    'zh-CN':
      '以间接方式获取执行命令或加载代码的能力（拼接/编码的模块名、process.getBuiltinModule、动态 import/require、getattr 等）；技能代码请直接、明文地写出所用的模块和函数',
    en: 'reaches process spawning or code loading indirectly (assembled or encoded module names, process.getBuiltinModule, dynamic import/require, getattr, …); name the modules and functions you use plainly',
  },
  find(code, lang, original) {
    if (lang === 'js') return jsIndirect(code, original ?? code);
    if (lang === 'py') return pyIndirect(code);
    return [];
  },
};

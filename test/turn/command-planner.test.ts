import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/envelope/types.ts';
import type { ModelTool } from '../../src/registry/types.ts';
import type { PlannerTurn } from '../../src/turn/planner.ts';
import { CommandPlanner, exampleCommand, helpText, parseCommand, type ParsedCommand } from '../../src/turn/planners/command.ts';

// README.md#start grammar table: [input, expected].
const GRAMMAR: [string, ParsedCommand][] = [
  ['/datatable action=list_tables', { kind: 'call', tool: 'datatable', args: { action: 'list_tables' } }],
  [
    '/datatable {"action":"query","payload":{"table_id":3}}',
    { kind: 'call', tool: 'datatable', args: { action: 'query', payload: { table_id: 3 } } },
  ],
  ['/datatable{"a":1}', { kind: 'call', tool: 'datatable', args: { a: 1 } }],
  ['/datatable', { kind: 'call', tool: 'datatable', args: {} }],
  ['  /datatable   a=1   b=2  ', { kind: 'call', tool: 'datatable', args: { a: 1, b: 2 } }],
  ['/x n=5 f=1.5 t=true nul=null', { kind: 'call', tool: 'x', args: { n: 5, f: 1.5, t: true, nul: null } }],
  ['/x ids=[1, 2, 3] obj={"k": "v w"}', { kind: 'call', tool: 'x', args: { ids: [1, 2, 3], obj: { k: 'v w' } } }],
  ['/x note="a b"', { kind: 'call', tool: 'x', args: { note: 'a b' } }],
  ['/x note="say \\"hi\\" \\\\ ok"', { kind: 'call', tool: 'x', args: { note: 'say "hi" \\ ok' } }],
  ["/x note='单引号 值'", { kind: 'call', tool: 'x', args: { note: '单引号 值' } }],
  ['/x note=“中文 引号”', { kind: 'call', tool: 'x', args: { note: '中文 引号' } }],
  ['/x n="5"', { kind: 'call', tool: 'x', args: { n: '5' } }],
  ['/x 名称=泵房3 备注="压力 低"', { kind: 'call', tool: 'x', args: { 名称: '泵房3', 备注: '压力 低' } }],
  ['/x code=007 phone=12345678901234567890', { kind: 'call', tool: 'x', args: { code: '007', phone: '12345678901234567890' } }],
  ['/x empty= url=https://a.example/?q=1', { kind: 'call', tool: 'x', args: { empty: '', url: 'https://a.example/?q=1' } }],
  ['/x expr=a=b', { kind: 'call', tool: 'x', args: { expr: 'a=b' } }],
  ['/x bad=[1,', { kind: 'call', tool: 'x', args: { bad: '[1,' } }],
  ['/repair_ticket__create title=漏水', { kind: 'call', tool: 'repair_ticket__create', args: { title: '漏水' } }],
  ['/repair-ticket', { kind: 'call', tool: 'repair-ticket', args: {} }],
  ['/datatable@skillgate_bot action=list_tables', { kind: 'call', tool: 'datatable', args: { action: 'list_tables' } }],
  ['/datatable@SkillGate_Bot', { kind: 'call', tool: 'datatable', args: {} }],
  ['/datatable@other_bot action=list_tables', { kind: 'none' }],
  ['／datatable a=1', { kind: 'call', tool: 'datatable', args: { a: 1 } }],
  ['/help', { kind: 'help' }],
  ['/help datatable', { kind: 'help', topic: 'datatable' }],
  ['/help /datatable', { kind: 'help', topic: 'datatable' }],
  ['/start', { kind: 'help' }],
  ['/stop', { kind: 'stop' }],
  ['/STOP', { kind: 'stop' }],
  ['/cancel', { kind: 'cancel' }],
  ['/stop@other_bot', { kind: 'none' }],
  ['确认', { kind: 'confirm' }],
  [' 确认 ', { kind: 'confirm' }],
  ['确认。', { kind: 'confirm' }],
  ['确认！', { kind: 'confirm' }],
  ['取消', { kind: 'cancel' }],
  ['停止', { kind: 'stop' }],
  ['confirm', { kind: 'confirm' }],
  ['Cancel', { kind: 'cancel' }],
  ['确认删除', { kind: 'none' }],
  ['请确认', { kind: 'none' }],
  ['hello', { kind: 'none' }],
  ['', { kind: 'none' }],
  ['/usr/bin/env', { kind: 'none' }],
  ['/ datatable', { kind: 'none' }],
];

const INVALID: string[] = ['/x {bad json', '/x [1,2]', '/x a', '/x a=1 a=2', '/x note="unterminated', '/x =5'];

describe('parseCommand — grammar', () => {
  it.each(GRAMMAR.filter(([i]) => i !== ''))('%s', (input, expected) => {
    expect(parseCommand(input, { botUsername: 'skillgate_bot' })).toEqual(expected);
  });

  it('empty input is none', () => {
    expect(parseCommand('')).toEqual({ kind: 'none' });
  });

  it.each(INVALID)('%s is invalid with a zh-CN and English message', (input) => {
    const p = parseCommand(input);
    expect(p.kind).toBe('invalid');
    if (p.kind === 'invalid') {
      expect(p.message).toMatch(/[\u4e00-\u9fff]/);
      expect(p.message_en).toMatch(/[A-Za-z]/);
    }
  });

  it('a duplicate key is refused, naming the key', () => {
    const p = parseCommand('/x 表=a 表=b');
    expect(p).toMatchObject({ kind: 'invalid', message: expect.stringContaining('表') });
  });

  it('without a known bot username, /cmd@anybot is taken as addressed to us', () => {
    expect(parseCommand('/datatable@whoever')).toEqual({ kind: 'call', tool: 'datatable', args: {} });
  });

  it('__proto__ as a key stays an own property', () => {
    const p = parseCommand('/x __proto__=1');
    expect(p.kind).toBe('call');
    if (p.kind === 'call') {
      expect(Object.getPrototypeOf(p.args)).toBe(Object.prototype);
      expect(Object.keys(p.args)).toEqual(['__proto__']);
    }
  });
});

function tool(name: string, description: string, parameters: Record<string, unknown> = { type: 'object', properties: {} }): ModelTool {
  return { type: 'function', function: { name, description, parameters } };
}

const DATATABLE = tool('datatable', '[数据] 数据表的增删改查\n第二行细节', {
  type: 'object',
  properties: { action: { type: 'string', enum: ['list_tables', 'query'], description: '操作名' }, payload: { type: 'object' } },
  required: ['action'],
});
const REPAIR = tool('repair-ticket', '[工单] 报修登记', {
  type: 'object',
  properties: {
    title: { type: 'string' },
    floor: { type: 'integer' },
    urgent: { type: 'boolean' },
    note: { type: 'string', examples: ['二楼 漏水'] },
  },
  required: ['title', 'floor', 'urgent', 'note'],
});
const SUB = tool('repair-ticket__close', '[工单] 关闭工单', {
  type: 'object',
  properties: { id: { type: 'string', default: 'T-1' } },
  required: ['id'],
});

function turnWith(text: string, tools: ModelTool[], lang: 'zh-CN' | 'en' = 'zh-CN') {
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  const turn: PlannerTurn = {
    text,
    raw_input: text,
    lang,
    tools,
    materials: [],
    invoke: async (t, args): Promise<Envelope> => {
      calls.push({ tool: t, args });
      return { success: true, user_message: `ran ${t}` };
    },
    signal: new AbortController().signal,
    progress: () => {},
  };
  return { turn, calls };
}

describe('CommandPlanner', () => {
  const planner = new CommandPlanner({ botUsername: 'skillgate_bot' });

  it('a call invokes the resolved tool once with the parsed args (`_` finds `-`)', async () => {
    const { turn, calls } = turnWith('/repair_ticket title=漏水 floor=2 urgent=true note="二楼 东侧"', [DATATABLE, REPAIR]);
    const r = await planner.handle(turn);
    expect(planner.name).toBe('command');
    expect(calls).toEqual([{ tool: 'repair-ticket', args: { title: '漏水', floor: 2, urgent: true, note: '二楼 东侧' } }]);
    expect(r.text).toBe('');
    expect(r.invocations).toEqual([
      { tool: 'repair-ticket', args: calls[0]!.args, envelope: { success: true, user_message: 'ran repair-ticket' } },
    ]);
  });

  it('a sub-command tool resolves with `__`', async () => {
    const { turn, calls } = turnWith('/repair_ticket__close id=T-9', [REPAIR, SUB]);
    await planner.handle(turn);
    expect(calls).toEqual([{ tool: 'repair-ticket__close', args: { id: 'T-9' } }]);
  });

  it('an unknown tool invokes nothing and lists close matches', async () => {
    const { turn, calls } = turnWith('/datatabel action=list_tables', [DATATABLE, REPAIR]);
    const r = await planner.handle(turn);
    expect(calls).toEqual([]);
    expect(r.text).toContain('没有名为「datatabel」的技能');
    expect(r.text).toContain('`/datatable`');
    expect(r.text).not.toContain('`/repair-ticket`');
  });

  it('/help lists every tool grouped by [category] with an example from required params', async () => {
    const { turn, calls } = turnWith('/help', [REPAIR, DATATABLE, SUB, tool('echo', 'Echo back')]);
    const r = await planner.handle(turn);
    expect(calls).toEqual([]);
    expect(r.text).toContain('**可用命令**（共 4 个）');
    expect(r.text).toContain('**数据**\n- `/datatable action=list_tables` — 数据表的增删改查');
    expect(r.text).toContain(
      '**工单**\n- `/repair-ticket title=<title> floor=1 urgent=true note="二楼 漏水"` — 报修登记\n- `/repair-ticket__close id=T-1` — 关闭工单',
    );
    expect(r.text).toContain('**其他**\n- `/echo` — Echo back');
    expect(r.text).not.toContain('第二行细节');
  });

  it('the help example commands parse back to the example arguments', () => {
    expect(parseCommand(exampleCommand(REPAIR))).toEqual({
      kind: 'call',
      tool: 'repair-ticket',
      args: { title: '<title>', floor: 1, urgent: true, note: '二楼 漏水' },
    });
  });

  it('help stays readable for 30+ tools: one line each, in English too', () => {
    const many = Array.from({ length: 34 }, (_, i) =>
      tool(`skill_${String(i).padStart(2, '0')}`, `[cat${i % 4}] Tool number ${i}\nmore`, {
        type: 'object',
        properties: { q: { type: 'string' } },
        required: ['q'],
      }),
    );
    const text = helpText(many, 'en');
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(34);
    expect(text).toContain('**Available commands** (34)');
    expect(text.match(/^\*\*cat\d\*\*$/gm)).toEqual(['**cat0**', '**cat1**', '**cat2**', '**cat3**']);
    expect(text).toContain('- `/skill_05 q=<q>` — Tool number 5');
  });

  it('/help <tool> shows its parameters; plain text gets the closest commands, not the listing', async () => {
    const r = await planner.handle(turnWith('/help repair_ticket', [REPAIR]).turn);
    expect(r.text).toContain('**/repair-ticket**');
    expect(r.text).toContain('- `floor` (必填, 整数)');
    const plain = await planner.handle(turnWith('你好', [REPAIR], 'en').turn);
    expect(plain.text).not.toContain('**Available commands**');
    expect(plain.text).toContain('- `/repair-ticket');
  });

  it('/help shows the whole purpose without the model-facing sentences; /help <skill> lists every action with an example', async () => {
    const dt = tool(
      'datatable',
      '[数据] 数据表统一入口：建表、查询、统计、增删改、批量导入、SQL（PostgreSQL，按组织隔离）。input = {"action": "<操作名>", "payload": {...}}，payload 的键也可平铺在顶层。',
      {
        type: 'object',
        properties: { action: { type: 'string' }, payload: { type: ['object', 'string'] } },
      },
    );
    const list = await planner.handle(turnWith('/help', [dt]).turn);
    expect(list.text).toContain('- `/datatable` — 数据表统一入口：建表、查询、统计、增删改、批量导入、SQL（PostgreSQL，按组织隔离）。\n');
    expect(list.text).not.toContain('input =');
    expect(list.text).not.toMatch(/[\p{L}\p{N}]…/u); // nothing cut inside a word
    const full = {
      'x-actions': {
        list_tables: { description: '列出数据表', properties: {}, examples: [{}] },
        query: {
          description: '查询记录',
          properties: { table_name: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 1000 } },
          required: ['table_name'],
          examples: [{ table_name: '客户', limit: 20 }],
        },
      },
    };
    const withActions = new CommandPlanner({ schemaOf: (name) => (name === 'datatable' ? full : undefined) });
    const help = (await withActions.handle(turnWith('/help datatable', [dt]).turn)).text;
    expect(help).toContain('**操作**（共 2 个，用 `action=` 选择）');
    expect(help).toContain('**list_tables** — 列出数据表\n示例：`/datatable action=list_tables`');
    expect(help).toContain(
      '**query** — 查询记录\n- `table_name` (必填, 文本)\n- `limit` (可选, 整数, 1–1000)\n示例：`/datatable action=query table_name=客户 limit=20`',
    );
    expect(parseCommand('/datatable action=query table_name=客户 limit=20')).toEqual({
      kind: 'call',
      tool: 'datatable',
      args: { action: 'query', table_name: '客户', limit: 20 },
    });
  });

  it('a malformed command explains the problem and shows that tool’s help', async () => {
    const { turn, calls } = turnWith('/datatable action=query action=list_tables', [DATATABLE]);
    const r = await planner.handle(turn);
    expect(calls).toEqual([]);
    expect(r.text).toContain('参数「action」重复了');
    expect(r.text).toContain('**/datatable**');
  });

  it('/cmd@otherbot does not invoke anything', async () => {
    const { turn, calls } = turnWith('/datatable@other_bot action=list_tables', [DATATABLE]);
    await planner.handle(turn);
    expect(calls).toEqual([]);
  });
});

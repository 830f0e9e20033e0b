/**
 * Pure parts of the `repair_ticket` skill: action and parameter-key normalisation (R-ACT-01..05),
 * the cost in a worker's reply, ticket numbers, recipient addresses
 * (docs/messaging.md) and the instant written to 日期时间 fields.
 */

/** The canonical actions (the dispatch table's keys), in the order the help lists them. */
export const ACTIONS = ['报修', '查询', '派单', '完成回复', '登记费用', '值班设置'] as const;
export type RepairAction = (typeof ACTIONS)[number];

/** What each action does (the `need_param: action` list and SKILL.md's table). */
export const ACTION_HELP: Readonly<Record<RepairAction, string>> = {
  报修: '新建工单（描述、位置、照片），通知运维并派给值班维修工',
  查询: '查看工单：全部、按状态，或某一张（工单=T-3）',
  派单: '把工单派给维修工（默认值班的那位），并等待其回复',
  完成回复: '维修工的回复：解析费用、保存照片、工单置为已完成、通知报修人和运维',
  登记费用: '补录或更正某张工单的费用',
  值班设置: '登记维修工并设为值班（不给联系方式时登记发消息的人自己）',
};

/**
 * Action aliases → canonical action (R-ACT-01). Keys are in {@link cleanAction} form.
 * Every value is a member of {@link ACTIONS} ({@link assertAliasTargets}, R-ACT-02).
 */
export const ACTION_ALIASES: Readonly<Record<string, RepairAction>> = {
  report: '报修',
  create: '报修',
  new: '报修',
  open: '报修',
  submit: '报修',
  new_ticket: '报修',
  create_ticket: '报修',
  新建报修: '报修',
  新建工单: '报修',
  提交报修: '报修',
  创建工单: '报修',
  报障: '报修',
  新建: '报修',
  报修单: '报修',
  我要报修: '报修',
  query: '查询',
  list: '查询',
  show: '查询',
  get: '查询',
  status: '查询',
  list_tickets: '查询',
  列表: '查询',
  查看: '查询',
  查看工单: '查询',
  工单列表: '查询',
  查工单: '查询',
  查询工单: '查询',
  进度: '查询',
  assign: '派单',
  dispatch: '派单',
  reassign: '派单',
  指派: '派单',
  转派: '派单',
  分派: '派单',
  派工: '派单',
  complete: '完成回复',
  done: '完成回复',
  finish: '完成回复',
  reply: '完成回复',
  完成: '完成回复',
  回复: '完成回复',
  维修完成: '完成回复',
  完工: '完成回复',
  set_cost: '登记费用',
  cost: '登记费用',
  补录费用: '登记费用',
  费用: '登记费用',
  更正费用: '登记费用',
  set_duty: '值班设置',
  on_duty: '值班设置',
  duty: '值班设置',
  set_worker: '值班设置',
  值班: '值班设置',
  设置值班: '值班设置',
  登记维修工: '值班设置',
  我值班: '值班设置',
  上班: '值班设置',
};

/**
 * Parameter-key aliases → canonical key (R-ACT-04). The canonical keys are ASCII (some model
 * APIs accept only `[a-zA-Z0-9_.-]` property names); the Chinese words people type work as aliases.
 */
export const PARAM_ALIASES: Readonly<Record<string, string>> = {
  描述: 'description',
  问题: 'description',
  故障: 'description',
  desc: 'description',
  text: 'description',
  content: 'description',
  位置: 'location',
  设备: 'location',
  地点: 'location',
  place: 'location',
  device: 'location',
  equipment: 'location',
  工单: 'ticket',
  工单号: 'ticket',
  ticket_id: 'ticket',
  id: 'ticket',
  状态: 'status',
  维修工: 'worker',
  assignee: 'worker',
  姓名: 'name',
  工号: 'emp_no',
  联系方式: 'contact',
  to: 'contact',
  值班: 'on_duty',
  费用: 'cost',
  fee: 'cost',
  amount: 'cost',
  price: 'cost',
  说明: 'note',
  完成说明: 'note',
  备注: 'note',
  照片: 'image',
  图片: 'image',
  photo: 'image',
  picture: 'image',
};

/** @throws Error when an alias points outside {@link ACTIONS} (R-ACT-02 self-check). */
export function assertAliasTargets(aliases: Readonly<Record<string, string>> = ACTION_ALIASES): void {
  for (const [k, v] of Object.entries(aliases)) {
    if (!(ACTIONS as readonly string[]).includes(v)) throw new Error(`repair_ticket: alias ${k} → ${v} is not an action`);
  }
}
assertAliasTargets();

/** Trimmed, NFKC, camelCase split, lower-cased; `-`, space, `.`, `/` → `_`. */
export function cleanAction(raw: string): string {
  return raw
    .normalize('NFKC')
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s\-./]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

/** The canonical action of `raw`, or undefined (then the caller refuses; nothing is guessed). */
export function resolveAction(raw: string): RepairAction | undefined {
  const c = cleanAction(raw);
  if ((ACTIONS as readonly string[]).includes(c)) return c as RepairAction;
  const hit = ACTION_ALIASES[c] ?? ACTION_ALIASES[c.replace(/_/g, '')];
  if (hit) return hit;
  if (/[\u4e00-\u9fa5]/.test(c)) {
    const stripped = c
      .replace(/_/g, '')
      .replace(/^(请|帮我|麻烦|给我)+/, '')
      .replace(/[一下吧了的]+$/g, '');
    if ((ACTIONS as readonly string[]).includes(stripped)) return stripped as RepairAction;
    return ACTION_ALIASES[stripped];
  }
  return undefined;
}

/** Input with canonical keys plus the notes of what was renamed (`received → canonical`). */
export function normalizeKeys(input: Record<string, unknown>): { params: Record<string, unknown>; notes: string[] } {
  const params: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const [k, v] of Object.entries(input)) {
    const canon = PARAM_ALIASES[k] ?? PARAM_ALIASES[k.toLowerCase()];
    if (canon && canon !== k) {
      if (canon in input) continue; // the canonical key wins
      params[canon] = v;
      notes.push(`${k} → ${canon}`);
    } else params[k] = v;
  }
  return { params, notes };
}

/** `T-12` / `t12` / `12` / 12 → 12; anything else → null. */
export function ticketNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 ? v : null;
  if (typeof v !== 'string') return null;
  const m = /^\s*(?:T\s*-?\s*)?(\d{1,15})\s*$/i.exec(v.normalize('NFKC'));
  return m ? Number(m[1]) : null;
}

/** The ticket number shown to people and used as the pending reply's `ref`. */
export function ticketRef(id: number | string): string {
  return `T-${id}`;
}

/** A number as written: digits with optional groups of three separated by commas, optional decimals. */
const NUM = String.raw`(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?`;
const COST_WORD_RE = new RegExp(
  String.raw`(?:费用|花费|花了|共计|合计|总计|收费|价格|金额|cost|fee)\s*(?:是|为|:|：|共)?\s*(?:rmb|cny|人民币)?\s*[¥￥]?\s*${NUM}\s*(万|千|k|w)?`,
  'i',
);
const CURRENCY_RE = new RegExp(String.raw`[¥￥]\s*${NUM}\s*(万|千|k|w)?|${NUM}\s*(万|千|k|w)?\s*(?:元|块|rmb|cny|yuan)`, 'i');

/** What {@link parseCost} found. */
export type CostParse = { cost: number } | { cost: null; reason: 'none' | 'magnitude' };

/**
 * The repair cost in a worker's reply, in yuan: 「完成了，费用 1200 元」 → 1200, 「费用：1,200」 →
 * 1200, 「1200.5元」 → 1200.5, full-width digits (「１２００元」) too. A number counts only next to
 * a cost word (费用、花费、合计…) or a currency mark (¥、元、块) — 「3号泵修好了」 has no cost.
 * Magnitude words (「1.2万」, 「3k」) are not converted (spec §7.5 refuses them for numbers):
 * `{cost: null, reason: 'magnitude'}`, so the worker is asked to write the digits. Never invents.
 */
export function parseCost(text: string): CostParse {
  const s = text.normalize('NFKC');
  const m = COST_WORD_RE.exec(s);
  let whole: string | undefined;
  let frac: string | undefined;
  let mag: string | undefined;
  if (m) [whole, frac, mag] = [m[1], m[2], m[3]];
  else {
    const c = CURRENCY_RE.exec(s);
    if (c) [whole, frac, mag] = c[1] !== undefined ? [c[1], c[2], c[3]] : [c[4], c[5], c[6]];
  }
  if (whole === undefined) return { cost: null, reason: 'none' };
  if (mag) return { cost: null, reason: 'magnitude' };
  const n = Number(`${whole.replace(/,/g, '')}${frac ? `.${frac}` : ''}`);
  return Number.isFinite(n) ? { cost: n } : { cost: null, reason: 'none' };
}

const DONE_RE = /完成|完工|修好|修复|弄好|搞定|处理好|已修|好了|done|fixed|finished|repaired/i;
const NOT_DONE_RE =
  /(没|未|还没|尚未|无法|不能)有?(完成|完工|修好|修复|弄好|搞定|处理好|修|好)|(修|弄|搞)不好|not\s+(yet\s+)?(done|fixed|finished)|can'?t\s+fix/i;

/**
 * Does a worker's reply report the repair as finished? Yes when it says so (完成、修好、搞定…) or
 * states a cost, and does not negate it (「还没修好」「无法修复」). Anything else — 「在路上」,
 * 「零件要明天到」 — is a progress note: the ticket stays 处理中 and the wait goes on.
 */
export function saysDone(text: string, hasCost: boolean): boolean {
  const s = text.normalize('NFKC');
  if (NOT_DONE_RE.test(s)) return false;
  return DONE_RE.test(s) || hasCost;
}

/** `<channel>[@<account>]:<id>` of a sender (docs/messaging.md); the `default` account is implied. */
export function addressOf(channel: string, account: string | null | undefined, id: string): string {
  return `${channel}${account && account !== 'default' ? `@${account}` : ''}:${id}`;
}

/**
 * `d` as a 日期时间 value: ISO-8601 UTC. The column is timestamptz, so the instant is stored
 * whatever zone the ticket is read in; people see it in theirs (docs/results.md "Times").
 */
export function instantValue(d: Date): string {
  return d.toISOString();
}

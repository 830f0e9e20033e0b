import { describe, expect, it } from 'vitest';
import { ACTION_ALIASES, assertAliasTargets, cleanAction, normalizeInput, resolveAction } from '../../src/datatable/call/normalize.ts';
import { DATATABLE_ACTIONS } from '../../src/datatable/model/types.ts';

function ok(input: unknown) {
  const r = normalizeInput(input);
  if ('envelope' in r) throw new Error(`refused: ${JSON.stringify(r.envelope)}`);
  return r;
}

describe('datatable input normalisation', () => {
  it('R-ACT-02: every alias target is canonical; the self-check rejects a bad table', () => {
    const canonical = new Set<string>(DATATABLE_ACTIONS);
    for (const t of Object.values(ACTION_ALIASES)) expect(canonical.has(t)).toBe(true);
    expect(() => assertAliasTargets({ 查询: 'query', 乱写: 'select_rows' })).toThrow(/乱写.*select_rows/);
  });

  it('R-ACT-01/R-DT-05: case, separators, camelCase, English synonyms and Chinese map to canonical actions', () => {
    const cases: Array<[string, string]> = [
      ['List-Tables', 'list_tables'],
      ['listTables', 'list_tables'],
      ['QUERY', 'query'],
      ['Query', 'query'],
      ['select', 'query'],
      ['查询', 'query'],
      ['帮我查询一下数据', 'query'],
      ['新增', 'insert'],
      ['新增一条记录', 'insert'],
      ['删除', 'delete'],
      ['批量删除', 'delete_batch'],
      ['按条件删除', 'delete_by'],
      ['按条件删除数据', 'delete_by'],
      ['统计', 'aggregate'],
      ['建表', 'create_table'],
      ['delete by', 'delete_by'],
      ['bulk-insert', 'insert_batch'],
      ['导入', 'insert_from_file'],
      ['执行SQL', 'sql_execute'],
      ['ＱＵＥＲＹ', 'query'],
    ];
    for (const [raw, want] of cases) expect(resolveAction(raw)?.action, raw).toBe(want);
    expect(cleanAction(' Delete-By ')).toBe('delete_by');
  });

  it('R-ACT-01: an unrelated Chinese phrase is not guessed (no substring matching)', () => {
    expect(resolveAction('删除表格里的数据')).toBeUndefined();
    expect(resolveAction('随便干点啥')).toBeUndefined();
  });

  it('R-ACT-03: a normalisation is echoed as action_note "<received> → <canonical>"', () => {
    expect(ok({ action: 'Query', payload: { table_id: 'x' } }).actionNote).toBe('Query → query');
    expect(ok({ action: 'query', payload: { table_id: 'x' } }).actionNote).toBeUndefined();
  });

  it('R-DT-01: flat and nested payloads give the same call; nested wins on a clash', () => {
    const a = ok({ action: 'query', payload: { table_id: 't', limit: 5 } });
    const b = ok({ action: 'query', table_id: 't', limit: 5 });
    expect(a.payload).toEqual(b.payload);
    expect(ok({ action: 'query', limit: 1, payload: { limit: 2 } }).payload.limit).toBe(2);
    expect(ok({ action: 'query', payload: '{"table_id":"t"}' }).payload).toEqual({ table_id: 't' });
  });

  it('R-ACT-04: parameter-key aliases are renamed and echoed', () => {
    const r = ok({ action: 'insert', table: '客户', row: { 名称: 'A' }, order_by: '-id', filter: [], confirm: true });
    expect(r.payload).toEqual({ table_name: '客户', data: { 名称: 'A' }, sort: '-id', filters: [], 确认: true });
    expect(r.actionNote).toContain('row → data');
    expect(r.actionNote).toContain('filter → filters');
    expect(r.actionNote).toContain('order_by → sort');
    expect(r.actionNote).toContain('table → table_name');
    expect(r.actionNote).toContain('confirm → 确认');
    const both = ok({ action: 'insert', data: { a: 1 }, row: { a: 2 } });
    expect(both.payload.data).toEqual({ a: 1 });
    expect(both.actionNote).toContain('row ignored (data given)');
    expect(ok({ action: 'delete_by', 确定: 'ct_abcdefghijk' }).payload).toEqual({ confirm_token: 'ct_abcdefghijk' });
  });

  it('R-ACT-05: no action ⇒ need_param action with the full list, never a guessed write', () => {
    for (const input of [{}, { data: { a: 1 } }, { action: '' }, null]) {
      const r = normalizeInput(input);
      expect('envelope' in r).toBe(true);
      if (!('envelope' in r)) continue;
      expect(r.envelope).toMatchObject({ success: false, need_param: 'action', error_type: 'recoverable' });
      expect(r.envelope.actions).toEqual([...DATATABLE_ACTIONS]);
    }
    const unknown = normalizeInput({ action: 'frobnicate' });
    expect('envelope' in unknown && unknown.envelope.error).toMatch(/unknown action "frobnicate"/);
    const en = normalizeInput({}, 'en');
    expect('envelope' in en && en.envelope.user_message).toMatch(/Please say which operation/);
  });

  it('R-ACT-06: a 「确认」 prefix strips to the action and adds 确认=true (noted)', () => {
    const r = ok({ action: '确认删除', row_id: 3 });
    expect(r.action).toBe('delete');
    expect(r.payload.确认).toBe(true);
    expect(r.actionNote).toContain('确认=true');
    expect(ok({ action: 'delete', row_id: 3 }).payload.确认).toBeUndefined();
  });
});

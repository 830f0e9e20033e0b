/**
 * The node allowlist of the SQL channel's walker (spec 000 §7.6;: "accept only
 * known node kinds and refuse any unknown node"): for every libpg-query node kind a statement
 * may contain, the fields it may carry and how each is walked. Data only; walker.ts applies it.
 */

/**
 * How a field is walked: `s` a scalar; `n` a wrapped node or list of them; `sel` a wrapped
 * SelectStmt (or list); `@Kind` a bare struct of that kind (or list).
 */
export type Field = 's' | 'n' | 'sel' | `@${string}`;

/** The allowlist: node kind → allowed fields. A kind or field not listed is refused. */
export const SPEC: Readonly<Record<string, Readonly<Record<string, Field>>>> = {
  // statements
  SelectStmt: {
    distinctClause: 'n', targetList: 'n', fromClause: 'n', whereClause: 'n', groupClause: 'n', groupDistinct: 's',
    havingClause: 'n', windowClause: 'n', valuesLists: 'n', sortClause: 'n', limitOffset: 'n', limitCount: 'n',
    limitOption: 's', withClause: '@WithClause', op: 's', all: 's', larg: '@SelectStmt', rarg: '@SelectStmt',
  },
  InsertStmt: {
    relation: '@TargetRangeVar', cols: 'n', selectStmt: 'sel', onConflictClause: '@OnConflictClause',
    returningClause: '@ReturningClause', withClause: '@WithClause', override: 's',
  },
  UpdateStmt: {
    relation: '@TargetRangeVar', targetList: 'n', whereClause: 'n', fromClause: 'n',
    returningClause: '@ReturningClause', withClause: '@WithClause',
  },
  DeleteStmt: {
    relation: '@TargetRangeVar', usingClause: 'n', whereClause: 'n', returningClause: '@ReturningClause',
    withClause: '@WithClause',
  },
  // clauses
  WithClause: { ctes: 'n', recursive: 's', location: 's' },
  CommonTableExpr: {
    ctename: 's', aliascolnames: 'n', ctematerialized: 's', ctequery: 'sel', search_clause: '@CTESearchClause',
    cycle_clause: '@CTECycleClause', location: 's',
  },
  CTESearchClause: { search_col_list: 'n', search_breadth_first: 's', search_seq_column: 's', location: 's' },
  CTECycleClause: {
    cycle_col_list: 'n', cycle_mark_column: 's', cycle_mark_value: 'n', cycle_mark_default: 'n',
    cycle_path_column: 's', location: 's',
  },
  OnConflictClause: { action: 's', infer: '@InferClause', targetList: 'n', whereClause: 'n', location: 's' },
  InferClause: { indexElems: 'n', whereClause: 'n', conname: 's', location: 's' },
  IndexElem: { name: 's', expr: 'n', indexcolname: 's', ordering: 's', nulls_ordering: 's' },
  ReturningClause: { exprs: 'n' },
  ResTarget: { name: 's', indirection: 'n', val: 'n', location: 's' },
  MultiAssignRef: { source: 'n', colno: 's', ncolumns: 's' },
  SetToDefault: { location: 's' },
  SortBy: { node: 'n', sortby_dir: 's', sortby_nulls: 's', location: 's' },
  WindowDef: {
    name: 's', refname: 's', partitionClause: 'n', orderClause: 'n', frameOptions: 's', startOffset: 'n',
    endOffset: 'n', location: 's',
  },
  GroupingSet: { kind: 's', content: 'n', location: 's' },
  // FROM items
  RangeVar: { schemaname: 's', catalogname: 's', relname: 's', inh: 's', relpersistence: 's', alias: '@Alias', location: 's' },
  TargetRangeVar: { schemaname: 's', catalogname: 's', relname: 's', inh: 's', relpersistence: 's', alias: '@Alias', location: 's' },
  Alias: { aliasname: 's', colnames: 'n' },
  JoinExpr: {
    jointype: 's', isNatural: 's', larg: 'n', rarg: 'n', usingClause: 'n', join_using_alias: '@Alias', quals: 'n',
    alias: '@Alias', rtindex: 's',
  },
  RangeSubselect: { lateral: 's', subquery: 'sel', alias: '@Alias' },
  RangeFunction: { lateral: 's', ordinality: 's', is_rowsfrom: 's', functions: 'n', alias: '@Alias', coldeflist: 'n' },
  ColumnDef: { colname: 's', typeName: '@TypeName', is_local: 's', location: 's' },
  // expressions
  A_Expr: { kind: 's', name: 'n', lexpr: 'n', rexpr: 'n', rexpr_list_start: 's', rexpr_list_end: 's', location: 's' },
  A_Const: { ival: 's', fval: 's', boolval: 's', sval: 's', bsval: 's', isnull: 's', location: 's' },
  ColumnRef: { fields: 'n', location: 's' },
  FuncCall: {
    funcname: 'n', args: 'n', agg_order: 'n', agg_filter: 'n', over: '@WindowDef', agg_within_group: 's',
    agg_star: 's', agg_distinct: 's', func_variadic: 's', funcformat: 's', location: 's',
  },
  NamedArgExpr: { arg: 'n', name: 's', argnumber: 's', location: 's' },
  TypeCast: { arg: 'n', typeName: '@TypeName', location: 's' },
  TypeName: { names: 'n', typemod: 's', typmods: 'n', arrayBounds: 'n', location: 's' },
  SubLink: { subLinkType: 's', subLinkId: 's', testexpr: 'n', operName: 'n', subselect: 'sel', location: 's' },
  CaseExpr: { arg: 'n', args: 'n', defresult: 'n', location: 's' },
  CaseWhen: { expr: 'n', result: 'n', location: 's' },
  CoalesceExpr: { args: 'n', location: 's' },
  MinMaxExpr: { op: 's', args: 'n', location: 's' },
  NullTest: { arg: 'n', nulltesttype: 's', argisrow: 's', location: 's' },
  BooleanTest: { arg: 'n', booltesttype: 's', location: 's' },
  BoolExpr: { boolop: 's', args: 'n', location: 's' },
  RowExpr: { args: 'n', row_format: 's', colnames: 'n', location: 's' },
  A_ArrayExpr: { elements: 'n', list_start: 's', list_end: 's', location: 's' },
  A_Indirection: { arg: 'n', indirection: 'n' },
  A_Indices: { is_slice: 's', lidx: 'n', uidx: 'n' },
  A_Star: {},
  SQLValueFunction: { op: 's', typmod: 's', location: 's' },
  CollateClause: { arg: 'n', collname: 'n', location: 's' },
  GroupingFunc: { args: 'n', location: 's' },
  // values
  String: { sval: 's' },
  Integer: { ival: 's' },
  Float: { fval: 's' },
  Boolean: { boolval: 's' },
  BitString: { bsval: 's' },
  List: { items: 'n' },
};

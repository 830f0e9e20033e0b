/**
 * What the SQL channel lets a statement name besides the organisation's own tables
 * (R-DT-81/83). Allowlists, not denylists: a function, type or
 * value function that is not listed here is refused, so a new or forgotten server function
 * (file readers, settings, dblink, query_to_xml …) never slips through.
 *
 * Unqualified function and type names resolve in `pg_catalog` first (it is always searched
 * implicitly, even with `search_path` set to the org schema alone), so these lists are the
 * complete set of catalog objects a statement can reach by name.
 */
import type { LogicalType } from '../model/types.ts';

/** Aggregates, window functions and scalar functions a statement may call (lower case). */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'string_agg',
  'array_agg',
  'bool_and',
  'bool_or',
  'every',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'percentile_cont',
  'percentile_disc',
  'mode',
  'corr',
  'covar_pop',
  'covar_samp',
  'json_agg',
  'json_object_agg',
  // window functions
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  // strings (btrim/ltrim/rtrim/substring/position/overlay/similar_to_escape also come from SQL syntax)
  'length',
  'char_length',
  'character_length',
  'octet_length',
  'lower',
  'upper',
  'initcap',
  'btrim',
  'ltrim',
  'rtrim',
  'substring',
  'substr',
  'position',
  'strpos',
  'replace',
  'translate',
  'concat',
  'concat_ws',
  'left',
  'right',
  'lpad',
  'rpad',
  'repeat',
  'reverse',
  'split_part',
  'starts_with',
  'regexp_replace',
  'regexp_match',
  'regexp_matches',
  'regexp_split_to_array',
  'regexp_split_to_table',
  'regexp_like',
  'regexp_count',
  'regexp_substr',
  'regexp_instr',
  'string_to_array',
  'array_to_string',
  'format',
  'md5',
  'chr',
  'ascii',
  'to_hex',
  'quote_literal',
  'overlay',
  'similar_to_escape',
  'similar_escape',
  'normalize',
  'is_normalized',
  // numbers
  'abs',
  'round',
  'ceil',
  'ceiling',
  'floor',
  'trunc',
  'mod',
  'power',
  'pow',
  'sqrt',
  'cbrt',
  'exp',
  'ln',
  'log',
  'log10',
  'sign',
  'div',
  'pi',
  'random',
  'width_bucket',
  'gcd',
  'lcm',
  'degrees',
  'radians',
  'to_number',
  // dates and times (extract/timezone/overlaps also come from SQL syntax)
  'now',
  'clock_timestamp',
  'statement_timestamp',
  'transaction_timestamp',
  'date_trunc',
  'date_part',
  'extract',
  'age',
  'make_date',
  'make_time',
  'make_timestamp',
  'make_timestamptz',
  'make_interval',
  'to_char',
  'to_date',
  'to_timestamp',
  'justify_days',
  'justify_hours',
  'justify_interval',
  'isfinite',
  'timezone',
  'date_bin',
  'overlaps',
  // conditionals
  'num_nulls',
  'num_nonnulls',
  // arrays and set-returning helpers
  'array_length',
  'array_upper',
  'array_lower',
  'cardinality',
  'array_position',
  'array_positions',
  'array_append',
  'array_prepend',
  'array_cat',
  'array_remove',
  'array_replace',
  'unnest',
  'generate_series',
  'generate_subscripts',
  // JSON held in text / json values (no jsonb: spec §7.6(1))
  'json_build_object',
  'json_build_array',
  'json_object',
  'json_array_length',
  'json_extract_path',
  'json_extract_path_text',
  'json_each',
  'json_each_text',
  'json_array_elements',
  'json_array_elements_text',
  'json_typeof',
  'json_object_keys',
  'to_json',
  'row_to_json',
  'array_to_json',
  // misc
  'gen_random_uuid',
]);

/**
 * Functions refused with a specific reason (they are not in {@link ALLOWED_FUNCTIONS} either;
 * this map only makes the refusal message precise). Prefix entries end with `*`.
 */
export const DENIED_FUNCTION_REASONS: ReadonlyArray<[pattern: string, why: string]> = [
  ['pg_read_file', 'reads server files'],
  ['pg_read_binary_file', 'reads server files'],
  ['pg_ls_*', 'lists server directories'],
  ['pg_stat_file', 'reads server files'],
  ['lo_*', 'large objects read and write server files'],
  ['set_config', 'changes server settings'],
  ['current_setting', 'reads server settings'],
  ['dblink*', 'opens connections to other databases'],
  ['pg_sleep*', 'holds the connection'],
  ['query_to_xml*', 'runs SQL text that was never checked'],
  ['cursor_to_xml*', 'reads cursors'],
  ['table_to_xml*', 'reads tables by name'],
  ['schema_to_xml*', 'reads whole schemas'],
  ['database_to_xml*', 'reads the whole database'],
  ['nextval', 'reaches sequences by name'],
  ['currval', 'reaches sequences by name'],
  ['setval', 'reaches sequences by name'],
  ['lastval', 'reaches sequences'],
  ['pg_terminate_backend', 'ends other sessions'],
  ['pg_cancel_backend', 'cancels other sessions'],
  ['pg_advisory*', 'takes locks'],
  ['pg_notify', 'sends notifications'],
  ['to_regclass', 'resolves relations by name'],
  ['jsonb*', 'uses JSONB (not supported, spec §7.6(1))'],
  ['pg_*', 'is a server administration function'],
];

/** Why `name` is refused (a specific reason, or a generic one). */
export function deniedFunctionReason(name: string): string {
  for (const [pattern, why] of DENIED_FUNCTION_REASONS) {
    if (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern) return why;
  }
  return 'is not on the SQL channel allowlist';
}

/** Type names a cast, typed literal or column definition may use (the last name part). */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'text',
  'varchar',
  'bpchar',
  'char',
  'int2',
  'int4',
  'int8',
  'numeric',
  'float4',
  'float8',
  'bool',
  'date',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'interval',
  'json',
  'uuid',
]);

/**
 * Column SQL types of tables created or altered through SQL and their logical type (A-36:
 * "types mapped from the SQL types in the statement itself"). `多选` only for text arrays.
 */
export const COLUMN_TYPE_MAP: Readonly<Record<string, LogicalType>> = {
  text: '文本',
  varchar: '文本',
  bpchar: '文本',
  int2: '整数',
  int4: '整数',
  int8: '整数',
  numeric: '数字',
  float4: '数字',
  float8: '数字',
  bool: '勾选',
  date: '日期',
  timestamp: '日期时间',
  timestamptz: '日期时间',
  time: '时间',
  json: 'JSON',
};

/** SQL value functions allowed (dates and times only: no CURRENT_USER, CURRENT_SCHEMA …). */
export const ALLOWED_VALUE_FUNCTIONS: ReadonlySet<string> = new Set([
  'SVFOP_CURRENT_DATE',
  'SVFOP_CURRENT_TIME',
  'SVFOP_CURRENT_TIME_N',
  'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N',
  'SVFOP_LOCALTIME',
  'SVFOP_LOCALTIME_N',
  'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]);

/** Schemas named in refusals with their own reason (R-DT-81). */
export const SYSTEM_SCHEMAS: ReadonlySet<string> = new Set(['public', 'pg_catalog', 'information_schema', 'pg_toast', 'pg_temp']);

/**
 * Statements the SQL channel refuses outright (R-DT-79/80/82): transaction
 * control, CREATE of anything but TABLE/INDEX/VIEW, and every other statement kind with a
 * precise reason (COPY, DO, SET, LOCK, VACUUM, GRANT …).
 */
import type { RawNode } from './parser.ts';
import { refuse } from './refusal.ts';

/** Statement kinds with a specific refusal (everything not handled is refused too). */
const REFUSED_STATEMENTS: Readonly<Record<string, [en: string, zh: string]>> = {
  CopyStmt: ['COPY reads and writes server files and programs', 'COPY 会读写服务器文件或执行程序'],
  DoStmt: ['DO blocks run procedural code', 'DO 代码块会执行过程代码'],
  CallStmt: ['CALL runs procedures', 'CALL 会执行存储过程'],
  VariableSetStmt: ['SET / RESET changes session settings', 'SET / RESET 会修改会话设置'],
  VariableShowStmt: ['SHOW reads server settings', 'SHOW 会读取服务器设置'],
  LockStmt: ['LOCK takes table locks', 'LOCK 会锁表'],
  VacuumStmt: ['VACUUM / ANALYZE are maintenance commands', 'VACUUM / ANALYZE 是维护命令'],
  GrantStmt: ['GRANT / REVOKE change privileges', 'GRANT / REVOKE 会修改权限'],
  GrantRoleStmt: ['GRANT / REVOKE role change privileges', 'GRANT / REVOKE 会修改权限'],
  ListenStmt: ['LISTEN is not allowed', '不允许 LISTEN'],
  NotifyStmt: ['NOTIFY is not allowed', '不允许 NOTIFY'],
  UnlistenStmt: ['UNLISTEN is not allowed', '不允许 UNLISTEN'],
  PrepareStmt: ['PREPARE is not allowed', '不允许 PREPARE'],
  ExecuteStmt: ['EXECUTE is not allowed', '不允许 EXECUTE'],
  DeallocateStmt: ['DEALLOCATE is not allowed', '不允许 DEALLOCATE'],
  DeclareCursorStmt: ['cursors are not allowed', '不允许游标'],
  FetchStmt: ['cursors are not allowed', '不允许游标'],
  ClosePortalStmt: ['cursors are not allowed', '不允许游标'],
  TruncateStmt: [
    'TRUNCATE deletes every row without a WHERE (R-DT-79); use DELETE … WHERE',
    'TRUNCATE 会清空整表，不被允许；请用带 WHERE 的 DELETE',
  ],
  ExplainStmt: ['EXPLAIN is not allowed', '不允许 EXPLAIN'],
  MergeStmt: ['MERGE is not allowed: use INSERT / UPDATE / DELETE', '不允许 MERGE，请用 INSERT / UPDATE / DELETE'],
  AlterObjectSchemaStmt: ['moving objects between schemas is not allowed', '不允许把对象移到其他 schema'],
  AlterSystemStmt: ['ALTER SYSTEM changes server settings', 'ALTER SYSTEM 会修改服务器设置'],
  AlterOwnerStmt: ['changing owners is not allowed', '不允许修改所有者'],
  AlterRoleStmt: ['roles cannot be changed', '不允许修改角色'],
  DropRoleStmt: ['roles cannot be changed', '不允许修改角色'],
  DropOwnedStmt: ['DROP OWNED is not allowed', '不允许 DROP OWNED'],
  ReassignOwnedStmt: ['REASSIGN OWNED is not allowed', '不允许 REASSIGN OWNED'],
  CheckPointStmt: ['CHECKPOINT is not allowed', '不允许 CHECKPOINT'],
  DiscardStmt: ['DISCARD is not allowed', '不允许 DISCARD'],
  LoadStmt: ['LOAD loads server libraries', 'LOAD 会加载服务器库'],
  ClusterStmt: ['CLUSTER is a maintenance command', 'CLUSTER 是维护命令'],
  ReindexStmt: ['REINDEX is a maintenance command', 'REINDEX 是维护命令'],
  CommentStmt: ['COMMENT ON is not allowed', '不允许 COMMENT ON'],
  SecLabelStmt: ['SECURITY LABEL is not allowed', '不允许 SECURITY LABEL'],
  RefreshMatViewStmt: ['materialized views are not allowed', '不允许物化视图'],
  ConstraintsSetStmt: ['SET CONSTRAINTS is transaction control', 'SET CONSTRAINTS 属于事务控制'],
  CreateTableAsStmt: [
    'CREATE TABLE … AS / SELECT … INTO is not allowed: CREATE TABLE with columns, then INSERT … SELECT',
    '不允许 CREATE TABLE … AS：请先 CREATE TABLE 定义列，再 INSERT … SELECT',
  ],
};

/** CREATE statements whose node name does not start with Create/Define. */
const OTHER_CREATE_KINDS: ReadonlySet<string> = new Set(['CompositeTypeStmt', 'RuleStmt']);

/** Refuse a statement kind the channel does not accept, with its rule. */
export function refuseStatement(kind: string, body: RawNode | undefined): never {
  if (kind === 'TransactionStmt') {
    refuse(
      'transaction_control',
      'transaction control (BEGIN/COMMIT/ROLLBACK/SAVEPOINT) is not allowed: every call runs in its own transaction (R-DT-80)',
      '不允许事务控制语句（BEGIN/COMMIT/ROLLBACK/SAVEPOINT）：每次调用自动在独立事务中执行',
    );
  }
  if (kind === 'CreateTableAsStmt' && body?.objtype === 'OBJECT_MATVIEW') {
    refuse(
      'create_kind',
      'CREATE supports only TABLE, INDEX and VIEW (R-DT-82); materialized views are refused',
      'CREATE 只支持 TABLE、INDEX、VIEW（不支持物化视图）',
    );
  }
  if (kind === 'CreateTableAsStmt') refuse('select_into', REFUSED_STATEMENTS[kind]![0], REFUSED_STATEMENTS[kind]![1]);
  const known = REFUSED_STATEMENTS[kind];
  if (known)
    refuse(
      kind === 'TruncateStmt' ? 'where_required' : 'statement_not_allowed',
      `${known[0]}; not allowed on the SQL channel`,
      `${known[1]}，SQL 通道不允许`,
    );
  if (/^(Create|Define)/.test(kind) || OTHER_CREATE_KINDS.has(kind)) {
    refuse('create_kind', `CREATE supports only TABLE, INDEX and VIEW (R-DT-82); ${kind} is refused`, 'CREATE 只支持 TABLE、INDEX、VIEW');
  }
  refuse(
    'statement_not_allowed',
    `${kind} is not allowed on the SQL channel (only SELECT, INSERT, UPDATE, DELETE, CREATE TABLE/INDEX/VIEW, ALTER TABLE)`,
    `SQL 通道不允许该语句（${kind}）；只支持 SELECT、INSERT、UPDATE、DELETE、CREATE TABLE/INDEX/VIEW、ALTER TABLE`,
  );
}

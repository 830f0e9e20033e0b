/**
 * Structural datatable actions on fields (R-DT-45..47, R-DT-25, D-01,
 * add_field, update_field, delete_field — `ALTER TABLE` on the organisation's table and
 * the metadata in one transaction (rolled back together on any error). All need team_role
 * owner/admin (D-01) and the action allowed by the table's grants.
 */
import type { Envelope } from '../../envelope/types.ts';
import type { DtEnv, FieldMeta, TableMeta } from '../model/types.ts';
import { columnSqlType, fieldView, normalizeFieldDef } from '../catalog/fields.ts';
import { renameOwnerField, listGrants } from '../access/grants.ts';
import { deleteFieldMeta, getTable, insertFieldMeta, updateFieldMeta } from '../catalog/metadata.ts';
import { qualified, quoteIdent } from '../model/naming.ts';
import { checkAction } from '../access/permissions.ts';
import { dbErrorEnvelope, dtFail, dtOk, needParam, sqlState, type DtLang } from '../model/results.ts';
import { backupBeforeDrop, columnDdl, lockSchema, structuralGate, uniqueConstraints, usingExpr, type TableHandler } from './ddl.ts';
import type { Tx } from '../../store/db.ts';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Re-read the table inside the transaction with its metadata row locked (no lost updates). */
async function lockedTable(tx: Tx, table: TableMeta): Promise<TableMeta | null> {
  await lockSchema(tx, table.schema);
  await tx.query('SELECT id FROM skillgate.dt_tables WHERE id = $1::uuid FOR UPDATE', [table.id]);
  return getTable(tx, table.orgId, table.id);
}

/** Thrown inside a transaction to end it with a prepared envelope (rolled back). */
class Refusal extends Error {
  constructor(readonly envelope: Envelope) {
    super('refused');
  }
}

function tableGone(table: TableMeta, lang: DtLang): Envelope {
  return dtFail('recoverable', { zh: `数据表「${table.title}」已不存在`, en: `table "${table.title}" no longer exists` }, lang, {
    need_param: 'table_id',
  });
}

function fieldMissing(table: TableMeta, title: string, lang: DtLang): Envelope {
  const names = table.fields.map((f) => `「${f.title}」`).join('、') || '（无）';
  return dtFail(
    'recoverable',
    {
      zh: `表「${table.title}」没有字段「${title}」。现有字段：${names}`,
      en: `table "${table.title}" has no field "${title}"; fields: ${table.fields.map((f) => f.title).join(', ')}`,
    },
    lang,
    { need_param: 'field_title', columns: table.fields.map((f) => f.title) },
  );
}

async function run(env: DtEnv, what: string, fn: (tx: Tx) => Promise<Envelope>): Promise<Envelope> {
  try {
    return await env.tx(fn);
  } catch (err) {
    if (err instanceof Refusal) return err.envelope;
    if (sqlState(err) === '2BP01') {
      return dtFail(
        'recoverable',
        {
          zh: `${what} 失败：还有视图等对象依赖这个字段，请先删除这些视图`,
          en: `${what} failed: views depend on this column; drop them first`,
        },
        env.caller.lang,
        {
          sqlstate: '2BP01',
        },
      );
    }
    return dbErrorEnvelope(err, what, env.caller.lang);
  }
}

/**
 * add_field(table_id, field) (R-DT-45): validates the definition like create_table's
 * (identifier, type, options, precision), refuses a title already in use, then
 * `ALTER TABLE … ADD COLUMN` (UNIQUE when asked) and records it after the existing fields.
 * Returns the field definition `{title, uidt, required, unique, options, precision, scale}`.
 */
export const addField: TableHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const denied = structuralGate(env) ?? checkAction(access, 'add_field', lang, table.title);
  if (denied) return denied;
  const raw = payload.field;
  if (!isPlainObject(raw)) {
    return needParam(
      'field',
      {
        zh: 'field 必须是字段定义对象，例如 {"title":"备注","uidt":"长文本"}',
        en: 'field must be a field definition object, e.g. {"title":"note","uidt":"长文本"}',
      },
      lang,
    );
  }
  const def = normalizeFieldDef(raw, 0, lang);
  if (!def.ok)
    return needParam(
      'field',
      { zh: `字段定义有误：${def.errors.join('；')}`, en: `invalid field definition: ${def.errors.join('; ')}` },
      lang,
      { errors: def.errors },
    );
  return run(env, 'add_field', async (tx) => {
    const current = await lockedTable(tx, table);
    if (!current) throw new Refusal(tableGone(table, lang));
    if (current.fields.some((f) => f.title === def.field.title)) {
      throw new Refusal(
        needParam('field', { zh: `字段「${def.field.title}」已存在`, en: `field "${def.field.title}" already exists` }, lang),
      );
    }
    const field: FieldMeta = { ...def.field, position: Math.max(-1, ...current.fields.map((f) => f.position)) + 1 };
    await tx.query(`ALTER TABLE ${qualified(current.schema, current.title)} ADD COLUMN ${columnDdl(field)}`);
    await insertFieldMeta(tx, current.id, field);
    return dtOk(fieldView(field));
  });
};

const PATCH_KEYS = ['title', 'uidt', 'type', 'required', 'unique', 'options', 'precision', 'scale'] as const;

/**
 * update_field(table_id, field_title, patch) (R-DT-46): `patch` may change `title` (rename;
 * identifier rule, grants' owner field follows), `uidt` (ALTER COLUMN TYPE, converting the
 * stored values — a value that does not convert fails the change with a recoverable error and
 * nothing changes), `required`, `unique` (adds/drops the UNIQUE constraint; existing duplicates
 * make adding it fail), `options`, `precision`, `scale`. Unknown patch keys are ignored and
 * named in `ignored`. Returns the field's latest definition.
 */
export const updateField: TableHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const denied = structuralGate(env) ?? checkAction(access, 'update_field', lang, table.title);
  if (denied) return denied;
  const fieldTitle = str(payload.field_title) ?? str(payload.field);
  if (!fieldTitle) return needParam('field_title', { zh: '请给出要修改的字段名 field_title', en: 'field_title is required' }, lang);
  const patch = payload.patch;
  if (!isPlainObject(patch)) {
    return needParam(
      'patch',
      {
        zh: 'patch 必须是对象，例如 {"title":"新名称"} 或 {"options":["甲","乙"]}',
        en: 'patch must be an object, e.g. {"title":"new name"}',
      },
      lang,
    );
  }
  const known = Object.keys(patch).filter((k) => (PATCH_KEYS as readonly string[]).includes(k));
  const ignored = Object.keys(patch).filter((k) => !(PATCH_KEYS as readonly string[]).includes(k));
  if (known.length === 0) {
    return needParam(
      'patch',
      { zh: `patch 没有可修改的项；可用：${PATCH_KEYS.join(', ')}`, en: `patch changes nothing; use ${PATCH_KEYS.join(', ')}` },
      lang,
      { ignored },
    );
  }
  return run(env, 'update_field', async (tx) => {
    const current = await lockedTable(tx, table);
    if (!current) throw new Refusal(tableGone(table, lang));
    const old = current.fields.find((f) => f.title === fieldTitle);
    if (!old) throw new Refusal(fieldMissing(current, fieldTitle, lang));
    const merged: Record<string, unknown> = { ...fieldView(old) };
    for (const k of known) merged[k === 'type' ? 'uidt' : k] = patch[k];
    const typeChanged = merged.uidt !== old.uidt;
    if (typeChanged && patch.precision === undefined) delete merged.precision;
    if (typeChanged && patch.scale === undefined) delete merged.scale;
    const def = normalizeFieldDef(merged, old.position, lang);
    if (!def.ok)
      throw new Refusal(
        needParam(
          'patch',
          { zh: `修改后的字段定义有误：${def.errors.join('；')}`, en: `invalid field after the patch: ${def.errors.join('; ')}` },
          lang,
          { errors: def.errors },
        ),
      );
    const next = def.field;
    if (next.title !== old.title && current.fields.some((f) => f.title === next.title)) {
      throw new Refusal(needParam('patch', { zh: `字段「${next.title}」已存在`, en: `field "${next.title}" already exists` }, lang));
    }
    const rel = qualified(current.schema, current.title);
    const oldType = columnSqlType(old);
    const newType = columnSqlType(next);
    if (oldType !== newType) {
      await tx.query(
        `ALTER TABLE ${rel} ALTER COLUMN ${quoteIdent(old.title)} TYPE ${newType} USING ${usingExpr(old.title, old, newType, next.uidt)}`,
      );
    }
    if (old.unique !== next.unique) {
      if (next.unique) await tx.query(`ALTER TABLE ${rel} ADD UNIQUE (${quoteIdent(old.title)})`);
      else
        for (const c of await uniqueConstraints(tx, current.schema, current.title, old.title))
          await tx.query(`ALTER TABLE ${rel} DROP CONSTRAINT ${quoteIdent(c)}`);
    }
    if (next.title !== old.title) {
      await tx.query(`ALTER TABLE ${rel} RENAME COLUMN ${quoteIdent(old.title)} TO ${quoteIdent(next.title)}`);
      await renameOwnerField(tx, current.id, old.title, next.title);
    }
    await updateFieldMeta(tx, current.id, old.title, next);
    return dtOk({ ...fieldView(next), ...(ignored.length > 0 ? { ignored } : {}) });
  });
};

/**
 * delete_field(table_id, field_title) (R-DT-47, A-30): refuses the owner field of an
 * own-scope grant (revoke or change the grant first — otherwise the table would fail closed for
 * that role, R-DT-19); backs the column's non-null values up to the workspace root (a failed
 * backup does not block), then `ALTER TABLE … DROP COLUMN` and removes the metadata.
 * Returns `{deleted: true, field: <definition>, backup_file}`.
 */
export const deleteField: TableHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const denied = structuralGate(env) ?? checkAction(access, 'delete_field', lang, table.title);
  if (denied) return denied;
  const fieldTitle = str(payload.field_title) ?? str(payload.field);
  if (!fieldTitle) return needParam('field_title', { zh: '请给出要删除的字段名 field_title', en: 'field_title is required' }, lang);
  return run(env, 'delete_field', async (tx) => {
    const current = await lockedTable(tx, table);
    if (!current) throw new Refusal(tableGone(table, lang));
    const field = current.fields.find((f) => f.title === fieldTitle);
    if (!field) throw new Refusal(fieldMissing(current, fieldTitle, lang));
    const owners = (await listGrants(tx, current.id)).filter((g) => g.ownerField === field.title).map((g) => g.roleId);
    if (owners.length > 0) {
      throw new Refusal(
        dtFail(
          'config',
          {
            zh: `字段「${field.title}」是角色 ${owners.join('、')} 的行归属字段，不能删除；请先调整授权（skillgate datatable revoke）`,
            en: `field "${field.title}" is the owner field of the grants of role(s) ${owners.join(', ')}; revoke or change them first`,
          },
          lang,
          { non_retriable: true },
        ),
      );
    }
    const backupFile = await backupBeforeDrop(env, tx, current, field);
    await tx.query(`ALTER TABLE ${qualified(current.schema, current.title)} DROP COLUMN ${quoteIdent(field.title)}`);
    await deleteFieldMeta(tx, current.id, field.title);
    return dtOk({ deleted: true, field: fieldView(field), backup_file: backupFile });
  });
};

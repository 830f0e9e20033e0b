import { describe, expect, it } from 'vitest';
import {
  describeIdentifierProblem,
  identifierProblem,
  isSystemColumn,
  isUuid,
  isValidIdentifier,
  orgSchemaName,
  OrgSchemaError,
  qualified,
  quoteIdent,
} from '../../src/datatable/model/naming.ts';

describe('datatable naming', () => {
  it('R-DT-06: org "Ab-9" ⇒ org_data_ab9 (non-alphanumerics removed, lower-cased)', () => {
    expect(orgSchemaName('Ab-9')).toBe('org_data_ab9');
    expect(orgSchemaName('ACME Corp.')).toBe('org_data_acmecorp');
    expect(orgSchemaName('研发Team_1')).toBe('org_data_team1');
  });

  it('R-DT-12, A-31: an org id that is empty or normalises to nothing is refused, never org_data_', () => {
    for (const bad of ['', '   ', '--', '研发部', '_']) {
      expect(() => orgSchemaName(bad)).toThrow(OrgSchemaError);
      try {
        orgSchemaName(bad);
      } catch (err) {
        expect((err as OrgSchemaError).reason).toBe('empty');
      }
    }
  });

  it('R-DT-06: a schema name beyond 63 bytes is refused instead of being truncated by the server', () => {
    expect(orgSchemaName('a'.repeat(54))).toBe(`org_data_${'a'.repeat(54)}`);
    expect(() => orgSchemaName('a'.repeat(55))).toThrow(/too long/);
  });

  it('R-DT-10: Chinese, letters, digits and underscore, 1–50 characters, not starting with a digit', () => {
    for (const ok of ['客户', 'a', '_x', 'Name_2', '容差百分比', 'x'.repeat(50), '订单明细2026']) expect(isValidIdentifier(ok)).toBe(true);
    expect(identifierProblem('1a')).toBe('starts_with_digit');
    expect(identifierProblem('容差%')).toBe('bad_character');
    expect(identifierProblem('a b')).toBe('bad_character');
    expect(identifierProblem('a-b')).toBe('bad_character');
    expect(identifierProblem('表😀')).toBe('bad_character');
    expect(identifierProblem('x'.repeat(51))).toBe('too_long');
    expect(identifierProblem('')).toBe('empty');
    expect(identifierProblem(12)).toBe('not_string');
  });

  it('R-DT-10, A-32: Chinese characters beyond the \\u4e00-\\u9fa5 range are refused', () => {
    expect(identifierProblem('𠀀表')).toBe('bad_character'); // CJK extension B (astral)
    expect(identifierProblem('ｘ')).toBe('bad_character'); // full-width letter
  });

  it('R-DT-10: a name over 63 UTF-8 bytes (22 Chinese characters) is refused: PostgreSQL would truncate it', () => {
    expect(isValidIdentifier('表'.repeat(21))).toBe(true);
    expect(identifierProblem('表'.repeat(22))).toBe('too_many_bytes');
    expect(describeIdentifierProblem('表'.repeat(22), 'too_many_bytes', 'en')).toMatch(/63 bytes/);
  });

  it('R-DT-84: the explanation of "容差%" suggests 容差百分比 (zh-CN default, en available)', () => {
    expect(describeIdentifierProblem('容差%', 'bad_character')).toContain('容差百分比');
    expect(describeIdentifierProblem('容差%', 'bad_character', 'en')).toContain('容差百分比');
    expect(describeIdentifierProblem('1a', 'starts_with_digit')).toContain('数字开头');
  });

  it('R-DT-08: id and created_at are system columns in any letter case', () => {
    expect(isSystemColumn('id')).toBe(true);
    expect(isSystemColumn('ID')).toBe(true);
    expect(isSystemColumn('Created_At')).toBe(true);
    expect(isSystemColumn('ids')).toBe(false);
  });

  it('R-DT-104: identifiers are quoted with doubled quotes; qualified names are schema-qualified', () => {
    expect(quoteIdent('客户')).toBe('"客户"');
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(quoteIdent('select')).toBe('"select"');
    expect(qualified('org_data_acme', '客户')).toBe('"org_data_acme"."客户"');
    expect(() => quoteIdent('')).toThrow();
    expect(() => quoteIdent('a\u0000b')).toThrow();
  });

  it('R-DT-03: table ids are UUIDs; a title is not', () => {
    expect(isUuid('0b7c6f0e-1d2a-4c3b-9e8f-1234567890ab')).toBe(true);
    expect(isUuid('客户')).toBe(false);
    expect(isUuid('0b7c6f0e1d2a4c3b9e8f1234567890ab')).toBe(false);
  });
});

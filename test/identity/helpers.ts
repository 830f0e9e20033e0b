/** Shared setup of the identity tests: fixture files and a small import helper. */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { importDirectory } from '../../src/identity/index.ts';
import type { ImportReport } from '../../src/identity/types.ts';
import type { Db } from '../../src/store/db.ts';

/** Absolute path of a file under test/fixtures/directory/. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../fixtures/directory/${name}`, import.meta.url));
}

/** The bytes of a fixture file. */
export function fixture(name: string): Buffer {
  return readFileSync(fixturePath(name));
}

/** Import a JSON document into org `orgId` (role `default`). */
export function importJson(db: Db, orgId: string, doc: unknown, roleId = 'default'): Promise<ImportReport> {
  return importDirectory(db, { orgId, roleId, data: JSON.stringify(doc), format: 'json', channels: BUILD_DIRECTORY_CHANNELS });
}

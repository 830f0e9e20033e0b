/**
 * Caches emptied by writers' notifications (src/store/invalidated-cache.ts): a skill
 * parameter saved or deleted, a directory imported, is seen by the next read — on the same
 * process and, on a server, on another replica's cache — and a load in flight during a change
 * is not kept.
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { importDirectory, resolveActor } from '../../src/identity/index.ts';
import { getSkillConfig, setSkillConfig, deleteSkillConfig } from '../../src/runtime/skill-config.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openServerDb } from '../../src/store/open.ts';
import { createInvalidatedCache, DIRECTORY_CHANNEL, SKILL_CONFIG_CHANNEL } from '../../src/store/invalidated-cache.ts';
import { describeEachEngine, serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';

const KEY = randomBytes(32);

/** Wait until `cond` holds (a notification is asynchronous). */
async function eventually(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met');
}

describeEachEngine('invalidated caches', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('serves repeated reads from memory and sees a saved or deleted parameter at once', async () => {
    const cache = await createInvalidatedCache<Record<string, string>>(db(), SKILL_CONFIG_CHANNEL);
    let loads = 0;
    const read = () => cache.get('default\u0000weather', () => (loads++, getSkillConfig(db(), KEY, 'default', 'weather')));
    expect(await read()).toEqual({});
    expect(await read()).toEqual({});
    expect(loads).toBe(1);
    await setSkillConfig(db(), KEY, { roleId: 'default', skill: 'weather', key: 'city', value: '上海', via: 'operator' });
    await eventually(async () => (await read()).city === '上海');
    expect(loads).toBe(2);
    await deleteSkillConfig(db(), 'default', 'weather', 'city');
    await eventually(async () => (await read()).city === undefined);
    await cache.close();
  });

  it('a directory import empties the sender cache', async () => {
    const cache = await createInvalidatedCache<{ known: boolean }>(db(), DIRECTORY_CHANNEL);
    const args = { orgId: 'demo', roleId: 'default', channel: 'telegram', platformId: '777', nickname: 'x' };
    const who = () => cache.get(JSON.stringify(args), () => resolveActor(db(), args));
    expect((await who()).known).toBe(false);
    await importDirectory(db(), {
      orgId: 'demo',
      roleId: 'default',
      format: 'csv',
      channels: BUILD_DIRECTORY_CHANNELS,
      data: 'contact_key,name,telegram\nwang,王五,777',
    });
    await eventually(async () => (await who()).known);
    await cache.close();
  });

  it('does not keep a value loaded while a change was announced, nor a failed load', async () => {
    const cache = await createInvalidatedCache<number>(db(), 'skillgate_test_cache');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.get('k', async () => {
      await gate;
      return 1;
    });
    cache.clear(); // a change announced while the load runs
    release();
    expect(await slow).toBe(1);
    expect(await cache.get('k', async () => 2)).toBe(2);
    await expect(cache.get('e', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('e', async () => 3)).toBe(3);
    await cache.close();
    // closed: every read loads
    expect(await cache.get('k', async () => 4)).toBe(4);
  });
});

describe.runIf(TEST_DATABASE_URL)('invalidated caches across replicas (server)', () => {
  let a: Db;
  let b: Db;
  beforeAll(async () => {
    const url = await serverDatabaseUrl('_cache', true);
    a = openServerDb(url, { max: 2 });
    b = openServerDb(url, { max: 2 });
    await migrate(a);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("a parameter saved through one replica is seen by the other's cache", async () => {
    const cacheB = await createInvalidatedCache<Record<string, string>>(b, SKILL_CONFIG_CHANNEL, { ttlMs: 3_600_000 });
    const readB = () => cacheB.get('default\u0000weather', () => getSkillConfig(b, KEY, 'default', 'weather'));
    expect(await readB()).toEqual({});
    await setSkillConfig(a, KEY, { roleId: 'default', skill: 'weather', key: 'city', value: '北京', via: 'operator' });
    await eventually(async () => (await readB()).city === '北京');
    await cacheB.close();
  });
});

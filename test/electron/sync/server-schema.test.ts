/**
 * The team space's schema on a real PostgreSQL (docs/team-sync.md): made by the owner's first
 * sync, brought up from any older version, refused when newer than this Flipbook knows, refused
 * in words to a role that may not create it, and left as it was by a migration that fails.
 * Each test works in a database of its own, so that each may run alone.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateServer, SERVER_MIGRATIONS, SERVER_SCHEMA_VERSION, ServerSchemaError, serverSchemaVersion } from '../../../electron/sync/server-schema';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

let server: PgServer;
beforeAll(async () => {
  server = await startPgServer();
}, 120_000);
afterAll(() => server?.stop());

let n = 0;
/** A fresh database and an admin connection to it; the caller ends it. */
async function freshDatabase(): Promise<{ name: string; client: pg.Client }> {
  const name = `schema_${++n}`;
  const boot = await server.client(ADMIN, 'postgres');
  try {
    await boot.query(`CREATE DATABASE ${name}`);
  } finally {
    await boot.end();
  }
  return { name, client: await server.client(ADMIN, name) };
}

async function migrations(c: pg.Client): Promise<{ version: number; name: string }[]> {
  return (await c.query<{ version: number; name: string }>('SELECT version, name FROM flipbook.schema_migrations ORDER BY version')).rows;
}

describe('the server schema (real PostgreSQL)', () => {
  it('lists its migrations in ascending versions, the last one being the schema version', () => {
    const versions = SERVER_MIGRATIONS.map((m) => m.version);
    expect(versions.length).toBeGreaterThan(1);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(SERVER_SCHEMA_VERSION).toBe(versions[versions.length - 1]);
    expect(SERVER_MIGRATIONS.every((m) => /^[a-z][a-z-]+$/.test(m.name))).toBe(true);
  });

  it('is made from nothing by the first migration run, each migration recorded, and a second run changes nothing', async () => {
    const { client } = await freshDatabase();
    try {
      expect(await serverSchemaVersion(client)).toBe(0);
      expect(await migrateServer(client)).toEqual({ from: 0, to: SERVER_SCHEMA_VERSION });
      expect(await migrations(client)).toEqual(SERVER_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      expect(await serverSchemaVersion(client)).toBe(SERVER_SCHEMA_VERSION);
      expect(await migrateServer(client)).toEqual({ from: SERVER_SCHEMA_VERSION, to: SERVER_SCHEMA_VERSION });
      expect(await migrations(client)).toHaveLength(SERVER_MIGRATIONS.length);
      // No transaction is left open.
      expect((await client.query<{ s: string }>('SELECT pg_current_xact_id_if_assigned() IS NULL AS s')).rows[0]!.s).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('is brought up from each older version by the migrations after it alone', async () => {
    for (let k = 1; k < SERVER_MIGRATIONS.length; k++) {
      const { client } = await freshDatabase();
      try {
        const older = SERVER_MIGRATIONS.slice(0, k);
        expect(await migrateServer(client, older)).toEqual({ from: 0, to: older[k - 1]!.version });
        expect(await serverSchemaVersion(client)).toBe(older[k - 1]!.version);
        expect(await migrateServer(client)).toEqual({ from: older[k - 1]!.version, to: SERVER_SCHEMA_VERSION });
        expect(await migrations(client)).toEqual(SERVER_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      } finally {
        await client.end();
      }
    }
  });

  it('refuses a schema newer than this Flipbook knows, and changes nothing', async () => {
    const { client } = await freshDatabase();
    try {
      await migrateServer(client);
      await client.query("INSERT INTO flipbook.schema_migrations (version, name) VALUES ($1, 'from-the-future')", [SERVER_SCHEMA_VERSION + 1]);
      const err = await migrateServer(client).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerSchemaError);
      expect((err as Error).message).toBe(
        `the server's Flipbook schema is version ${SERVER_SCHEMA_VERSION + 1}; this Flipbook knows up to ${SERVER_SCHEMA_VERSION} — update Flipbook`,
      );
      expect(await migrations(client)).toHaveLength(SERVER_MIGRATIONS.length + 1);
      // One version ahead of what it is given is refused too: the bound is the list's last.
      const { client: other } = await freshDatabase();
      try {
        await migrateServer(other, SERVER_MIGRATIONS.slice(0, 2));
        await expect(migrateServer(other, SERVER_MIGRATIONS.slice(0, 1))).rejects.toThrow(/schema is version 20; this Flipbook knows up to 10/);
        expect(await migrateServer(other, SERVER_MIGRATIONS.slice(0, 2))).toEqual({ from: 20, to: 20 });
      } finally {
        await other.end();
      }
    } finally {
      await client.end();
    }
  });

  it('tells a role that may not create the schema who may, and leaves nothing behind', async () => {
    const { name, client } = await freshDatabase();
    try {
      await client.query(`CREATE ROLE plain_${name} LOGIN PASSWORD '${server.password}'`);
      const plain = await server.client(`plain_${name}`, name);
      try {
        const err = await migrateServer(plain).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ServerSchemaError);
        expect((err as Error).message).toMatch(
          /^the server has no Flipbook schema \(or an older one\) and this role may not create it: permission denied for database schema_\d+\. Run the first sync as the database owner \(a role with CREATE on the database and CREATEROLE\), see docs\/team-sync\.md$/,
        );
        // The failed transaction was rolled back: the connection works on.
        expect((await plain.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await plain.end();
      }
      expect(await serverSchemaVersion(client)).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('rolls back a migration that fails, with its own error, keeping the versions before it', async () => {
    const { client } = await freshDatabase();
    try {
      await migrateServer(client, SERVER_MIGRATIONS.slice(0, 1));
      const broken = [...SERVER_MIGRATIONS.slice(0, 1), { version: 99, name: 'broken', sql: 'CREATE TABLE flipbook.half (x int); SELECT * FROM no_such_table' }];
      const err = await migrateServer(client, broken).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(ServerSchemaError);
      expect((err as { code?: string }).code).toBe('42P01');
      expect(await serverSchemaVersion(client)).toBe(SERVER_MIGRATIONS[0]!.version);
      expect((await client.query("SELECT to_regclass('flipbook.half') AS t")).rows[0]).toEqual({ t: null });
      expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });

  it('lets two first syncs at once make it once', async () => {
    const { name, client } = await freshDatabase();
    const second = await server.client(ADMIN, name);
    try {
      const [a, b] = await Promise.all([migrateServer(client), migrateServer(second)]);
      expect([a, b].sort((x, y) => x.from - y.from)).toEqual([
        { from: 0, to: SERVER_SCHEMA_VERSION },
        { from: SERVER_SCHEMA_VERSION, to: SERVER_SCHEMA_VERSION },
      ]);
      expect(await migrations(client)).toHaveLength(SERVER_MIGRATIONS.length);
    } finally {
      await second.end();
      await client.end();
    }
  });
});

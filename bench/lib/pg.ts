// A throwaway PostgreSQL database per benchmark run (--pg), dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const name = `sandtrap_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  return {
    url: PG_URL.replace(/\/[^/]*$/, `/${name}`),
    async drop() {
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    },
  };
}

import { defineConfig } from 'prisma/config';

// The CLI is only used for `prisma generate` here; migrations are applied by
// src/db/migrator.ts. The URL is read from the environment (this file does not load .env).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});

import { query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

export const usersProjection = projection({
  name: 'users',
  tables: ['users'],
  schema: [
    `
    create table if not exists users (
      id uuid primary key,
      name text not null,
      email text not null unique,
      role text not null,
      created_at timestamptz not null,
      plan_name text,
      plan_slug text,
      subscription_status text,
      subscription_expires_at timestamptz,
      points bigint not null default 0
    );`,
  ],
  on: {
    async UserRegistered(tx, { data: d }) {
      await query(
        tx,
        'ProjectUserRegistered',
        'insert into users (id, name, email, role, created_at) values ($1, $2, $3, $4, $5) on conflict do nothing',
        [d.userId, d.name, d.email, d.role, d.registeredAt],
      );
    },
    async SubscriptionGranted(tx, { data: d }) {
      await query(
        tx,
        'ProjectSubscriptionGranted',
        'update users set plan_name = $2, plan_slug = $3, subscription_status = $4, subscription_expires_at = $5 where id = $1',
        [d.userId, d.plan.name, d.plan.slug, d.status, d.expiresAt],
      );
    },
    async PointsDebited(tx, { data: d }) {
      await query(tx, 'ProjectPointsDebited', 'update users set points = points - $2 where id = $1', [
        d.userId,
        d.points,
      ]);
    },
    async PointsGranted(tx, { data: d }) {
      await query(tx, 'ProjectPointsGranted', 'update users set points = points + $2 where id = $1', [
        d.userId,
        d.points,
      ]);
    },
  },
});

export type UserRow = {
  id: string;
  name: string;
  email: string;
  role: string;
  created_at: Date;
  plan_name: string | null;
  plan_slug: string | null;
  subscription_status: string | null;
  subscription_expires_at: Date | null;
  points: number;
};

export async function findUserIdByEmail(db: Queryable, email: string): Promise<string | null> {
  const r = await query<{ id: string }>(db, 'FindUserIdByEmail', 'select id from users where email = $1', [email]);
  return r.rows[0]?.id ?? null;
}

export async function findUser(db: Queryable, userId: string): Promise<UserRow | null> {
  const r = await query<UserRow>(db, 'FindUser', 'select * from users where id = $1', [userId]);
  return r.rows[0] ?? null;
}

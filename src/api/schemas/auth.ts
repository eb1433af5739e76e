import { z } from 'zod';
import type { DocumentedOperation } from './index-requests.ts';

/**
 * The session surface's bodies as src/api/sign-in.ts checks them by hand (its refusals are the interface's Indonesian
 * texts, so the routes keep no body schema of their own) and its answers as src/api/auth.ts builds them.
 */

const userId = z.uuid();
const isoTime = z.iso.datetime();

const registerRequest = z.object({
  name: z.string().min(1).max(100).describe('Full name (at most 100 characters, not blank)'),
  email: z.email().max(254).describe('Unique per user; compared without case'),
  password: z
    .string()
    .min(8)
    .max(128)
    .describe('At least 8 characters, and none of the ~49,000 most common passwords (400 "Password terlalu umum")'),
});

const passwordChangeRequest = z.object({
  currentPassword: z.string().min(1).describe('The password the user signs in with now'),
  newPassword: z
    .string()
    .min(8)
    .max(128)
    .describe('The same rules as at registration: 8 to 128 characters, none of the most common passwords'),
});

const loginRequest = z.object({
  email: z.string().min(1),
  password: z.string().min(1),
});

const example = { id: '0b7e4c1e-5f7a-4a52-9a51-3f1f2e6f9d10', name: 'Siti Rahma', email: 'siti@example.com' };

export const registerResponse = z
  .object({
    ok: z.literal(true),
    user: z.object({ id: userId, name: z.string(), email: z.email() }),
  })
  .meta({
    id: 'RegisterResponse',
    description: 'The registered user, signed in (the svc_token cookie is set)',
    examples: [{ ok: true, user: example }],
  });

export const loginResponse = z
  .object({
    ok: z.literal(true),
    user: z.object({ id: userId, name: z.string(), email: z.email(), role: z.string().describe('USER or ADMIN') }),
  })
  .meta({
    id: 'LoginResponse',
    description: 'The signed-in user (the svc_token cookie is set)',
    examples: [{ ok: true, user: { ...example, role: 'USER' } }],
  });

export const sessionUser = z
  .object({
    id: userId,
    name: z.string(),
    email: z.email(),
    role: z.string().describe('USER or ADMIN'),
    createdAt: isoTime,
    points: z.number().describe('Points left for synchronising accounts'),
    subscription: z.object({
      status: z.string().nullable().describe('ACTIVE while the plan runs'),
      expiresAt: isoTime.nullable(),
      plan: z.object({ name: z.string().nullable(), slug: z.string().nullable() }),
    }),
    devices: z
      .array(
        z.object({
          id: z.uuid(),
          userAgent: z.string().nullable(),
          ip: z.string().nullable(),
          createdAt: isoTime,
          lastSeenAt: isoTime,
          current: z.boolean().describe('The session of this request'),
        }),
      )
      .describe('The live sessions'),
  })
  .meta({
    id: 'SessionUser',
    description: 'The signed-in user, with subscription and devices',
    examples: [
      {
        ...example,
        role: 'USER',
        createdAt: '2026-01-05T03:00:00.000Z',
        points: 1000,
        subscription: { status: 'ACTIVE', expiresAt: '2027-01-05T03:00:00.000Z', plan: { name: 'Free', slug: 'free' } },
        devices: [
          {
            id: '5d1f7a3c-2b7e-4f0e-8c3a-9e1d2c4b6a70',
            userAgent: 'Mozilla/5.0',
            ip: '203.0.113.7',
            createdAt: '2026-01-05T03:00:00.000Z',
            lastSeenAt: '2026-01-05T03:10:00.000Z',
            current: true,
          },
        ],
      },
    ],
  });

export const signedOut = z
  .object({ ok: z.literal(true) })
  .meta({ id: 'SignedOutResponse', description: 'The session ended', examples: [{ ok: true }] });

export const passwordChanged = z
  .object({ ok: z.literal(true) })
  .meta({ id: 'PasswordChangedResponse', description: 'The password changed', examples: [{ ok: true }] });

export const authOperations: Record<string, DocumentedOperation> = {
  'POST /api/auth/register': { body: { 'application/json': registerRequest }, responses: { 201: registerResponse } },
  'POST /api/auth/login': { body: { 'application/json': loginRequest }, responses: { 200: loginResponse } },
  'GET /api/auth/me': { responses: { 200: sessionUser } },
  'DELETE /api/auth/me': { responses: { 200: signedOut } },
  'POST /api/auth/password': {
    body: { 'application/json': passwordChangeRequest },
    responses: { 200: passwordChanged },
  },
};

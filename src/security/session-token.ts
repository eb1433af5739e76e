import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export type SessionClaims = { userId: string; sessionId: string };

/** The dashboard session JWT: HS256 only, with an expiry and the session id checked server-side on every use. */
export function sessionTokens(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    sign(claims: SessionClaims & { issuedAt: Date; expiresAt: Date }): Promise<string> {
      return new SignJWT({ sid: claims.sessionId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuedAt(Math.floor(claims.issuedAt.getTime() / 1000))
        .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
        .sign(key);
    },
    /**
     * The session's form token (the dashboard's pages put it in every form that changes something): the same on every
     * page of one session, useless to any other, under the same secret as the cookie.
     */
    formToken(sessionId: string): string {
      return createHmac('sha256', key).update(`form-token:v1:${sessionId}`).digest('base64url');
    },
    /**
     * The companion cookie's value under https (src/api/session-cookie.ts): an HMAC of the JWT, so only the service
     * makes the one that goes with a token, and a token planted without it names no session.
     */
    sessionBinding(token: string): string {
      return createHmac('sha256', key).update(`session-binding:v1:${token}`).digest('base64url');
    },
    bindsSession(token: string, binding: string | undefined): boolean {
      const expected = Buffer.from(this.sessionBinding(token));
      const given = Buffer.from(binding ?? '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    /** The sign-in and registration forms' token: the HMAC of the nonce in the browser's pre-session cookie. */
    preSessionFormToken(nonce: string): string {
      return createHmac('sha256', key).update(`pre-session-form:v1:${nonce}`).digest('base64url');
    },
    async verify(token: string, now: Date): Promise<SessionClaims | null> {
      try {
        // a token without exp would never expire as a JWT: refused, whoever signed it
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          currentDate: now,
          requiredClaims: ['exp'],
        });
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
        return { userId: payload.sub, sessionId: payload.sid };
      } catch {
        return null;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof sessionTokens>;

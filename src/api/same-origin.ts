import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuse } from '../errors.ts';

/**
 * What a browser sends for a cookie from another origin: the session cookie is SameSite=Lax, which still lets
 * a sibling origin of the same site (another port, a sub-domain) post with it, and a `text/plain` form needs no
 * preflight. Two guards close that: cookie-authenticated JSON routes take JSON only, and a state-changing request
 * whose `Sec-Fetch-Site` or `Origin` names another origin than PUBLIC_BASE_URL's is refused.
 */

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const bodyMethods = new Set(['POST', 'PUT', 'PATCH']);

/** True when the browser says the request comes from a page of another origin than `ownOrigin`. */
export function isCrossOrigin(request: FastifyRequest, ownOrigin: string): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  // the browser's own word: 'same-site' is another origin of the same site (another port), the attack in point
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false; // not a browser's cross-origin request (curl, a server, an old browser's GET)
  // a page reached by another name of this service is still same-origin by the browser's account
  return origin !== ownOrigin && fetchSite !== 'same-origin';
}

/**
 * True for a top-level navigation the user made on the service itself or typed (Fetch Metadata: a document from the
 * same origin or from nowhere), or a request of a client that is no browser (no such headers); false for another
 * origin's link or form, and for anything that is not a document (an image, a script, a fetch), whatever its origin.
 */
export function isOwnNavigation(request: FastifyRequest, ownOrigin: string): boolean {
  const dest = request.headers['sec-fetch-dest'];
  return !isCrossOrigin(request, ownOrigin) && (dest === undefined || dest === 'document');
}

/** Refuses (403) every state-changing request of the plugin's routes that a page of another origin sent. */
export function sameOriginOnly(app: FastifyInstance, publicBaseUrl: string) {
  const ownOrigin = new URL(publicBaseUrl).origin;
  app.addHook('onRequest', async request => {
    if (safeMethods.has(request.method) || !isCrossOrigin(request, ownOrigin)) return;
    // the session surface speaks Indonesian (its error shape is {ok, message})
    const session = request.routeOptions.config?.surface === 'session';
    throw refuse('CROSS_ORIGIN_REFUSED', session ? { message: 'Permintaan dari situs lain ditolak' } : {});
  });
}

const mediaType = (request: FastifyRequest) => request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();

/**
 * The plugin's routes (cookie-authenticated JSON) take `application/json` and nothing else on POST, PUT and PATCH,
 * bodyless ones included (415), so that no HTML form can reach them; an empty JSON body is read as no body.
 */
export function jsonOnly(app: FastifyInstance) {
  app.addHook('onRequest', async request => {
    if (bodyMethods.has(request.method) && mediaType(request) !== 'application/json')
      throw refuse('UNSUPPORTED_MEDIA_TYPE', { message: 'Send the request as application/json' });
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, done);
  });
}

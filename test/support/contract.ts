import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';

/**
 * Every answer the tests get, checked against the service's own OpenAPI document: an answer of a
 * documented operation must have a documented status, one of that status's media types, its headers and a body its
 * schema accepts. Paths the document leaves out on purpose (the dashboard's HTML pages, the reference page's assets)
 * and methods a path does not have (405, 404) match no operation and are not checked.
 */
/** An answer as both inject and fetch can give it. */
export type Answer = {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
};

export class ContractChecker {
  private readonly api: OpenAPIBackend;
  private ready: Promise<unknown>;

  constructor(document: Document) {
    this.api = new OpenAPIBackend({
      definition: structuredClone(document),
      quick: true,
      validate: true,
      ajvOpts: { strict: false },
      // formats checked, not ignored: uuid, date-time, uri, email, date
      customizeAjv: ajv => (addFormats as unknown as (a: typeof ajv) => typeof ajv)(ajv),
    });
    this.ready = this.api.init();
  }

  /** The ways an answer breaks the document, empty when it keeps it. */
  async breaches(
    request: { method: string; url: string; headers?: Record<string, unknown> },
    response: Answer,
  ): Promise<string[]> {
    await this.ready;
    const url = new URL(request.url, 'http://service.test');
    const operation = this.api.matchOperation({
      method: request.method.toLowerCase(),
      path: url.pathname,
      headers: {},
    });
    if (!operation) return [];
    return breachesOf(this.api, operation, response);
  }
}

function breachesOf(api: OpenAPIBackend, operation: Operation, response: Answer): string[] {
  const status = response.statusCode;
  const documented = operation.responses?.[String(status)] ?? operation.responses?.default;
  const name = `${operation.method.toUpperCase()} ${operation.path} ${status}`;
  if (!documented || '$ref' in documented)
    return [`${name}: the document does not list this status (body ${response.body.slice(0, 200)})`];
  const breaches: string[] = [];
  const mediaType = String(response.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  const media = Object.keys(documented.content ?? {});
  if (media.length === 0 && response.body.length > 0 && status !== 302)
    breaches.push(`${name}: a body where the document says none (${mediaType})`);
  if (media.length > 0 && !media.includes(mediaType))
    breaches.push(`${name}: content type ${mediaType || '(none)'}, the document says ${media.join(' or ')}`);
  if (mediaType === 'application/json' && media.includes(mediaType)) {
    const result = api.validateResponse(JSON.parse(response.body), operation, status);
    for (const error of result.errors ?? [])
      breaches.push(`${name}: body ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
  }
  const headers = api.validateResponseHeaders(response.headers, operation, {
    statusCode: status,
    setMatchType: 'superset' as never,
  });
  for (const error of headers.errors ?? [])
    breaches.push(`${name}: header ${error.instancePath || ''} ${error.message}`);
  return breaches;
}

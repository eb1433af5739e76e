import { appendFileSync } from 'node:fs';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Document } from 'openapi-backend';
import { ContractChecker } from './contract.ts';

/**
 * Makes every `app.inject` of a test check its answer against the app's own OpenAPI document: an answer the document
 * does not describe rejects the inject, so the test that made it fails. CONTRACT_BREACHES_LOG=<file>
 * writes breaches there instead, to survey them all in one run.
 */
export function checkAnswersAgainstDocument(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>;
  let checker: ContractChecker | undefined;
  const checked = async (options: InjectOptions | string) => {
    const response = await inject(options);
    checker ??= new ContractChecker(app.swagger() as Document);
    const request =
      typeof options === 'string'
        ? { method: 'GET', url: options }
        : { method: options.method ?? 'GET', url: String(options.url ?? options.path ?? '/') };
    const breaches = await checker.breaches(request, response);
    if (breaches.length === 0) return response;
    const survey = process.env.CONTRACT_BREACHES_LOG;
    if (survey) {
      appendFileSync(survey, breaches.map(b => `${b}\n`).join(''));
      return response;
    }
    throw new Error(`the answer breaks the OpenAPI document:\n${breaches.join('\n')}`);
  };
  (app as { inject: unknown }).inject = (options?: InjectOptions | string) =>
    options === undefined ? inject(options as never) : checked(options);
}

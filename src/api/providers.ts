import type { FastifyInstance } from 'fastify';
import { providers } from '../providers/catalogue.ts';

/** GET /api/v1/providers: the source of provider codes. */
export async function providerRoutes(app: FastifyInstance) {
  app.get('/', async () => ({ status: 'success', data: providers }));
}

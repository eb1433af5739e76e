import { apiKeysProjection } from './api-keys.ts';
import type { Projection } from './projection.ts';
import { sessionsProjection } from './sessions.ts';
import { usersProjection } from './users.ts';

/** Every read model the service keeps. */
export const projections: Projection[] = [usersProjection, sessionsProjection, apiKeysProjection];

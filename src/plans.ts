/** Every plan number lives here. */
export const freePlan = {
  name: 'Free',
  slug: 'free',
  durationDays: 365,
  points: 1000,
} as const;

/** Points one scheduled sync costs. */
export const pointsPerSync = 1;

/** How long the points taken at an account's creation pay for its scheduled syncs. */
export const prepaidSyncMs = 24 * 60 * 60_000;

/** Creating an account takes one day of its scheduled syncs in points (they pay for its first 24 hours of syncs). */
export function pointsToLinkAccount(intervalMinutes: number): number {
  return Math.ceil(1440 / intervalMinutes) * pointsPerSync;
}

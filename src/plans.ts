/** Every plan number lives here. */
export const freePlan = {
  name: 'Free',
  slug: 'free',
  durationDays: 365,
  points: 1000,
} as const;

/** Points one scheduled sync costs. */
export const pointsPerSync = 1;

/** Creating an account needs at least one day of its scheduled syncs. */
export function pointsToLinkAccount(intervalMinutes: number): number {
  return Math.ceil(1440 / intervalMinutes) * pointsPerSync;
}

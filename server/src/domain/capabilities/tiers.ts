import { type TTier, ZTier } from "@engram/contract";

/** The contract lists the tiers lowest first; a tier's rank is its place in that list. */
const tierOrder: readonly TTier[] = ZTier.options;

export function tierRank(tier: TTier): number {
  return tierOrder.indexOf(tier);
}

/** Whether an organization on `orgTier` may use something that needs `requirement` or above. */
export function meetsTier(orgTier: TTier, requirement: TTier): boolean {
  return tierRank(orgTier) >= tierRank(requirement);
}

/** How many capabilities one assistant may have, answer_questions included; null means no limit. */
const capabilityLimits: Readonly<Record<TTier, number | null>> = { free: 3, spark: 3, seed: 7, rise: 7, boost: null };

export function capabilityLimit(tier: TTier): number | null {
  return capabilityLimits[tier];
}

export { memoryRateBudget } from "./memory.js";
export type { ActorType, RateBudget, RateLimit, RateLimits } from "./types.js";

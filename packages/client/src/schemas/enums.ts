// Enum values of the service description, shared by input checks and response schemas.

export const NOTIFICATION_CATEGORIES = ["MAINTENANCE", "CONSENT"] as const;
export const NOTIFICATION_TYPES = ["SERVICE", "PLANNED_OUTAGE", "CONSENT_UPDATED", "CONSENT_REVOKED"] as const;

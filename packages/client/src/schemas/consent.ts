import * as z from "zod/mini";
import { openEnum } from "../internal/open-enum.js";
import { hateoasLinkSchema } from "./statement.js";

export const CONSENT_STATUSES = ["ACTIVE", "EXPIRED", "REVOKED"] as const;
export const CONSENT_PARTY_TYPES = ["DATA_ACCESS_PLATFORM", "DATA_PROVIDER", "DATA_RECIPIENT", "INDIVIDUAL", "MERCHANT", "VENDOR"] as const;
export const CONSENT_RESOURCE_TYPES = ["ACCOUNT", "CUSTOMER", "DOCUMENT"] as const;
/** FDX 6 consent duration types. */
export const CONSENT_DURATION_TYPES = ["ONE_TIME", "PERSISTENT", "TIME_BOUND"] as const;
/** FDX 6 registries of a party's `registeredEntityId`. */
export const PARTY_REGISTRIES = ["FDX", "GLEIF", "ICANN", "PRIVATE"] as const;

export const consentPartySchema = z.looseObject({
  name: z.optional(z.string()),
  type: z.optional(openEnum<typeof CONSENT_PARTY_TYPES>()),
  registeredEntityId: z.optional(z.string()),
  // FDX 6, optional
  homeUri: z.optional(z.string()),
  logoUri: z.optional(z.string()),
  registry: z.optional(openEnum<typeof PARTY_REGISTRIES>()),
  registeredEntityName: z.optional(z.string()),
});

export const consentResourceSchema = z.looseObject({
  resourceType: z.optional(openEnum<typeof CONSENT_RESOURCE_TYPES>()),
  resourceId: z.optional(z.string()),
  dataClusters: z.optional(z.array(z.string())),
});

/** An end-user consent grant. The service marks no field required. */
export const consentGrantSchema = z.looseObject({
  id: z.optional(z.string()),
  status: z.optional(openEnum<typeof CONSENT_STATUSES>()),
  parties: z.optional(z.array(consentPartySchema)),
  createdTime: z.optional(z.string()),
  // FDX 6, optional
  expirationTime: z.optional(z.string()),
  updatedTime: z.optional(z.string()),
  durationType: z.optional(openEnum<typeof CONSENT_DURATION_TYPES>()),
  durationPeriod: z.optional(z.number()),
  lookbackPeriod: z.optional(z.number()),
  resources: z.optional(z.array(consentResourceSchema)),
  links: z.optional(z.array(hateoasLinkSchema)),
});

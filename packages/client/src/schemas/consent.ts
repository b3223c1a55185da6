import * as z from "zod/mini";
import { openEnum } from "../internal/open-enum.js";
import { optionalStrings } from "./optional-strings.js";
import { hateoasLinkSchema } from "./statement.js";

export const CONSENT_STATUSES = ["ACTIVE", "EXPIRED", "REVOKED"] as const;
export const CONSENT_PARTY_TYPES = ["DATA_ACCESS_PLATFORM", "DATA_PROVIDER", "DATA_RECIPIENT", "INDIVIDUAL", "MERCHANT", "VENDOR"] as const;
export const CONSENT_RESOURCE_TYPES = ["ACCOUNT", "CUSTOMER", "DOCUMENT"] as const;
/** FDX 6 consent duration types. */
export const CONSENT_DURATION_TYPES = ["ONE_TIME", "PERSISTENT", "TIME_BOUND"] as const;
/** FDX 6 registries of a party's `registeredEntityId`. */
export const PARTY_REGISTRIES = ["FDX", "GLEIF", "ICANN", "PRIVATE"] as const;

export const consentPartySchema = z.looseObject({
  ...optionalStrings("name", "registeredEntityId"),
  type: z.optional(openEnum<typeof CONSENT_PARTY_TYPES>()),
  // FDX 6, optional
  ...optionalStrings("homeUri", "logoUri", "registeredEntityName"),
  registry: z.optional(openEnum<typeof PARTY_REGISTRIES>()),
});

export const consentResourceSchema = z.looseObject({
  resourceType: z.optional(openEnum<typeof CONSENT_RESOURCE_TYPES>()),
  resourceId: z.optional(z.string()),
  dataClusters: z.optional(z.array(z.string())),
});

/** An end-user consent grant. The service marks no field required. */
export const consentGrantSchema = z.looseObject({
  ...optionalStrings("id", "createdTime"),
  status: z.optional(openEnum<typeof CONSENT_STATUSES>()),
  parties: z.optional(z.array(consentPartySchema)),
  // FDX 6, optional
  ...optionalStrings("expirationTime", "updatedTime"),
  durationType: z.optional(openEnum<typeof CONSENT_DURATION_TYPES>()),
  durationPeriod: z.optional(z.number()),
  lookbackPeriod: z.optional(z.number()),
  resources: z.optional(z.array(consentResourceSchema)),
  links: z.optional(z.array(hateoasLinkSchema)),
});

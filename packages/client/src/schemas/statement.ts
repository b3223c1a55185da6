import * as z from "zod/mini";
import { openEnum } from "../internal/open-enum.js";
import { optionalStrings } from "./optional-strings.js";

export const LINK_ACTIONS = ["GET", "POST", "PATCH", "DELETE", "PUT"] as const;

/** A hateoasLink: `href` is required. */
export const hateoasLinkSchema = z.looseObject({
  href: z.string(),
  action: z.optional(openEnum<typeof LINK_ACTIONS>()),
  rel: z.optional(z.string()),
  types: z.optional(z.array(z.string())),
});

/** A statement. The service marks no field required; `status` is any string (its value list is not shown). */
export const statementSchema = z.looseObject({
  ...optionalStrings("accountId", "statementId", "statementDate", "description", "status"),
  links: z.optional(z.array(hateoasLinkSchema)),
});

/** A pagination link: absent, null, or with an absent, null or empty `href` when there is no such page. */
export const pageLinkSchema = z.nullable(z.looseObject({ href: z.optional(z.nullable(z.string())) }));

/** An FDX page object: providers that page by offset send it instead of links. */
export const pageMetadataSchema = z.looseObject({
  nextOffset: z.optional(z.union([z.string(), z.number()])),
  prevOffset: z.optional(z.union([z.string(), z.number()])),
  totalElements: z.optional(z.number()),
});

/** One page of the statement list, paged by `links` or by an FDX page object. */
export const statementListSchema = z.looseObject({
  links: z.optional(
    z.nullable(
      z.looseObject({
        prev: z.optional(pageLinkSchema),
        next: z.optional(pageLinkSchema),
      }),
    ),
  ),
  page: z.optional(pageMetadataSchema),
  statements: z.optional(z.array(statementSchema)),
});

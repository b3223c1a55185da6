import type { ConsentGrant, MaintenanceNotification, Statement } from "./types.js";

/**
 * The default bearer token of the sandbox: an unsigned JWT (`alg: none`). The
 * mock compares it as an opaque string (real service tokens need not be JWTs):
 * pass `token` to use any other one.
 */
export const SANDBOX_TOKEN =
  "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL3NhbmRib3guZmR4a2l0LnRlc3QiLCJzdWIiOiJmZHhraXQtc2FuZGJveC1jbGllbnQiLCJzY29wZSI6Im5vdGlmaWNhdGlvbnMgY29uc2VudHMgc3RhdGVtZW50cyJ9.c2FuZGJveA";

/** A sandbox end user who can sign in at the mock's identity provider and share accounts. */
export interface SandboxUser {
  username: string;
  password: string;
  /** Ids of the accounts the user owns (and may tick on the consent page). */
  accounts: string[];
}

/**
 * Data every mock instance starts with, identical for all of them.
 * `consents` and `maintenance` are the full objects the API returns;
 * `users` sign in at the identity provider (`users[0]` owns accounts with statements).
 */
export interface MockSeed {
  providerId: string;
  accounts: { accountId: string }[];
  consents: ConsentGrant[];
  maintenance: MaintenanceNotification[];
  users: SandboxUser[];
}

/** A seeded statement with what the mock needs beyond the API fields. */
export interface SeedStatement {
  accountId: string;
  statementId: string;
  statementDate: string;
  description: string;
  status: "AVAILABLE" | "PROCESSING" | "FAILED";
  /** `statementDate` in epoch milliseconds, for range filtering. */
  time: number;
}

// A fixed anchor instead of Date.now(): the same data on every run.
/** The last statement date of every seeded account (UTC). */
export const SEED_ANCHOR = new Date(Date.UTC(2026, 9, 31));
const MONTHS = 24;
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const PROVIDER_ID = "sandbox-bank";

const ACCOUNTS = [
  { accountId: "ACC-1001", product: "Everyday Checking", cycle: "monthly" },
  { accountId: "ACC-1002", product: "High-Yield Savings", cycle: "monthly" },
  { accountId: "ACC-1003", product: "Rewards Credit Card", cycle: "monthly" },
  // More statements than one page of the default limit (50) or the maximum (100) holds.
  { accountId: "ACC-1004", product: "Brokerage Cash Sweep", cycle: "weekly" },
  // No statements at all: the list answers 404/1108.
  { accountId: "ACC-1005", product: "New Savings", cycle: "none" },
] as const;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

// A few documents that cannot be downloaded, so clients meet every status.
const UNAVAILABLE: Record<string, SeedStatement["status"]> = {
  "ACC-1002|2025-03": "FAILED",
  "ACC-1003|2025-08": "FAILED",
  "ACC-1003|2026-10": "PROCESSING",
};

/**
 * Statement ids are "tokenized" by the service: these hold characters that
 * must be percent-encoded in a path (`:`, `|`, `/`, `=`), so clients that
 * build URLs by hand instead of using the link href get caught.
 */
function statementIdFor(accountId: string, period: string): string {
  return `stmt:${accountId}|${period}/${btoa(`${accountId}:${period}`)}`;
}

function monthly(accountId: string, product: string): SeedStatement[] {
  const list: SeedStatement[] = [];
  for (let back = 0; back < MONTHS; back++) {
    const year = SEED_ANCHOR.getUTCFullYear();
    const month = SEED_ANCHOR.getUTCMonth() - back;
    const date = new Date(Date.UTC(year, month + 1, 0)); // last day of that month
    const yearMonth = date.toISOString().slice(0, 7);
    list.push({
      accountId,
      statementId: statementIdFor(accountId, yearMonth),
      statementDate: date.toISOString(),
      description: `${product} statement, ${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCFullYear()}`,
      status: UNAVAILABLE[`${accountId}|${yearMonth}`] ?? "AVAILABLE",
      time: date.getTime(),
    });
  }
  return list;
}

/** One statement a week, from the anchor back to exactly two years before it (both ends included). */
function weekly(accountId: string, product: string): SeedStatement[] {
  const list: SeedStatement[] = [];
  const first = new Date(SEED_ANCHOR);
  first.setUTCFullYear(first.getUTCFullYear() - 2);
  for (let time = SEED_ANCHOR.getTime(); time >= first.getTime(); time -= WEEK_MS) {
    const date = new Date(time);
    const day = date.toISOString().slice(0, 10);
    list.push({
      accountId,
      statementId: statementIdFor(accountId, day),
      statementDate: date.toISOString(),
      description: `${product} statement, week ending ${day}`,
      status: "AVAILABLE",
      time,
    });
  }
  return list;
}

function buildStatements(): ReadonlyMap<string, readonly SeedStatement[]> {
  const byAccount = new Map<string, SeedStatement[]>();
  for (const { accountId, product, cycle } of ACCOUNTS) {
    // newest first
    byAccount.set(accountId, cycle === "monthly" ? monthly(accountId, product) : cycle === "weekly" ? weekly(accountId, product) : []);
  }
  return byAccount;
}

// Sandbox credentials, shown on the sign-in page: the first user (the default
// of `mock.authorize`) owns the monthly accounts, the second the weekly one and
// the one without statements.
const USERS: SandboxUser[] = [
  { username: "user_good", password: "pass_good", accounts: ["ACC-1001", "ACC-1002", "ACC-1003"] },
  { username: "user_many", password: "pass_many", accounts: ["ACC-1004", "ACC-1005"] },
];

const PARTIES: ConsentGrant["parties"] = [
  { name: "fdxkit Demo Budgeting App", type: "DATA_RECIPIENT", registeredEntityId: "REC-0042" },
  { name: "fdxkit Sandbox Bank", type: "DATA_PROVIDER", registeredEntityId: "PRV-0001" },
  { name: "fdxkit Network", type: "DATA_ACCESS_PLATFORM", registeredEntityId: "DAP-0007" },
];

const CONSENTS: ConsentGrant[] = [
  {
    id: "consent-active-1",
    status: "ACTIVE",
    parties: PARTIES,
    createdTime: "2025-01-15T10:30:00Z",
    resources: [
      { resourceType: "ACCOUNT", resourceId: "ACC-1001", dataClusters: ["ACCOUNT_BASIC", "ACCOUNT_DETAILED", "STATEMENTS"] },
      { resourceType: "ACCOUNT", resourceId: "ACC-1002", dataClusters: ["ACCOUNT_BASIC", "STATEMENTS"] },
      { resourceType: "CUSTOMER", resourceId: "CUST-501", dataClusters: ["CUSTOMER_CONTACT"] },
    ],
  },
  {
    id: "consent-expired-1",
    status: "EXPIRED",
    parties: PARTIES,
    createdTime: "2024-03-01T08:00:00Z",
    resources: [{ resourceType: "ACCOUNT", resourceId: "ACC-1003", dataClusters: ["ACCOUNT_BASIC", "TRANSACTIONS"] }],
  },
  {
    id: "consent-revoked-1",
    status: "REVOKED",
    parties: PARTIES,
    createdTime: "2025-06-10T14:45:00Z",
    resources: [
      { resourceType: "ACCOUNT", resourceId: "ACC-1002", dataClusters: ["ACCOUNT_BASIC", "STATEMENTS"] },
      { resourceType: "DOCUMENT", resourceId: "DOC-77", dataClusters: ["STATEMENTS"] },
    ],
  },
];

const MAINTENANCE: MaintenanceNotification[] = [
  {
    id: "maint-2026-11-08-planned",
    category: "MAINTENANCE",
    type: "PLANNED_OUTAGE",
    institutionId: PROVIDER_ID,
    startTime: "2026-11-08T06:00:00Z",
    endTime: "2026-11-08T08:00:00Z",
    title: "Planned outage of statement retrieval",
    message: "Statements will be unavailable while storage is upgraded.",
    impactedService: ["statements"],
  },
  {
    id: "maint-2026-10-20-service",
    category: "MAINTENANCE",
    type: "SERVICE",
    institutionId: PROVIDER_ID,
    startTime: "2026-10-20T01:00:00Z",
    endTime: "2026-10-20T01:30:00Z",
    title: "Notification service restart",
    message: "Webhook deliveries may be delayed by a few minutes.",
    impactedService: ["notifications", "consents"],
  },
];

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** What the routes serve; frozen so no instance can change another's data. */
export const SEED_DATA = deepFreeze({
  providerId: PROVIDER_ID,
  accounts: ACCOUNTS.map(({ accountId }) => ({ accountId })),
  consents: CONSENTS,
  maintenance: MAINTENANCE,
  users: USERS,
  statements: buildStatements(),
});

/** What each seeded account is ("Everyday Checking", …), for the consent page. */
export const ACCOUNT_PRODUCTS: ReadonlyMap<string, string> = new Map(ACCOUNTS.map(({ accountId, product }) => [accountId, product]));

/** The parties of every consent grant (the seeded ones and those the identity provider creates). */
export const CONSENT_PARTIES = SEED_DATA.consents[0]?.parties ?? [];

/** A fresh copy of the seed for one instance (a user may mutate their copy freely). */
export function seedCopy(): MockSeed {
  const { providerId, accounts, consents, maintenance, users } = SEED_DATA;
  return structuredClone({ providerId, accounts, consents, maintenance, users }) as MockSeed;
}

/** The statement as the API returns it, with its download link. */
export function toApiStatement(statement: SeedStatement, href: string): Statement {
  const { accountId, statementId, statementDate, description, status } = statement;
  return {
    accountId,
    statementId,
    statementDate,
    description,
    status,
    links: [{ href, action: "GET", rel: "download", types: ["application/pdf"] }],
  };
}

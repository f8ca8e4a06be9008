/**
 * The fictional organization behind the evaluation set: Tallyfox, a B2B invoicing and subscription-billing
 * company of about 120 people. Shared by the domain modules and the noise generator.
 */

export interface Service {
  name: string;
  team: string;
  language: string;
  /** A few words on what it does, as people would describe it. */
  blurb: string;
}

export const services: Service[] = [
  { name: "billing-api", team: "Billing Core", language: "Kotlin", blurb: "subscriptions, plans and invoices API" },
  { name: "invoice-renderer", team: "Billing Core", language: "Node.js", blurb: "turns invoices into PDFs" },
  { name: "dunning-worker", team: "Billing Core", language: "Kotlin", blurb: "retries failed payments and sends reminders" },
  { name: "tax-engine", team: "Billing Core", language: "Go", blurb: "computes sales tax and VAT" },
  { name: "payments-gateway", team: "Payments", language: "Go", blurb: "talks to Stripe and Adyen" },
  { name: "ledger", team: "Payments", language: "Kotlin", blurb: "double-entry bookkeeping" },
  { name: "payout-scheduler", team: "Payments", language: "Python", blurb: "sends payouts to merchants" },
  { name: "fx-rates", team: "Payments", language: "Go", blurb: "currency exchange rates" },
  { name: "auth-service", team: "Identity", language: "Go", blurb: "logins and access tokens" },
  { name: "sso-bridge", team: "Identity", language: "Java", blurb: "SAML and OIDC single sign-on for enterprise customers" },
  { name: "user-directory", team: "Identity", language: "TypeScript", blurb: "users, roles and SCIM provisioning" },
  { name: "api-gateway", team: "Platform", language: "Kong", blurb: "the public API edge" },
  { name: "rate-limiter", team: "Platform", language: "Go", blurb: "per-key request quotas" },
  { name: "scheduler", team: "Platform", language: "Go", blurb: "cron jobs for every team" },
  { name: "notification-hub", team: "Growth", language: "TypeScript", blurb: "emails, SMS and in-app notifications" },
  { name: "customer-portal", team: "Growth", language: "Next.js", blurb: "the web app customers log into" },
  { name: "onboarding-service", team: "Growth", language: "TypeScript", blurb: "signup and trial onboarding" },
  { name: "usage-metering", team: "Data", language: "Go", blurb: "usage events for metered billing" },
  { name: "reporting-api", team: "Data", language: "Python", blurb: "revenue and churn reports" },
  { name: "search-indexer", team: "Data", language: "Java", blurb: "search over invoices and customers" },
  { name: "warehouse-etl", team: "Data", language: "dbt", blurb: "loads the data warehouse" },
  { name: "webhook-dispatcher", team: "Integrations", language: "Go", blurb: "delivers webhooks to customers" },
  { name: "import-worker", team: "Integrations", language: "Python", blurb: "CSV imports of customers and invoices" },
  { name: "export-worker", team: "Integrations", language: "Python", blurb: "CSV and Excel exports" },
  { name: "accounting-sync", team: "Integrations", language: "TypeScript", blurb: "Xero and QuickBooks connectors" },
  { name: "mobile-bff", team: "Mobile", language: "TypeScript", blurb: "GraphQL backend for the mobile apps" },
  { name: "admin-console", team: "Support Engineering", language: "Ruby on Rails", blurb: "internal back office for support" },
  { name: "audit-trail", team: "Security", language: "Go", blurb: "immutable audit events" },
];

export const engineers = [
  "Jonas Weber", "Kwame Mensah", "Sofia Marin", "Ana Lopes", "Mehmet Aydin", "Rosa Delgado", "Tariq Aziz", "Ravi Kulkarni",
  "Chloe Dubois", "Hana Sato", "Aisha Bello", "Marco Rossi", "Sven Larsen", "Yusuf Demir", "Tom Becker", "Nadia Petrenko",
  "Felix Wagner", "Lucas Moreau", "Irene Costa", "Omar Haddad", "Zoe Clarke", "Daniel Cho", "Mei Lin", "Arjun Mehta",
];

export const teams = ["Billing Core", "Payments", "Identity", "Platform", "Growth", "Data", "Integrations", "Mobile", "Support Engineering", "Security"];

/** The day the evaluation is run; `daysAgo` counts back from it. */
export const evaluatedAt = new Date("2026-11-01T12:00:00Z");

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** ISO date of `days` before the evaluation day. */
export function isoDaysAgo(days: number): string {
  return new Date(evaluatedAt.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** "March 2026" for `days` before the evaluation day. */
export function monthDaysAgo(days: number): string {
  const date = new Date(evaluatedAt.getTime() - days * 86_400_000);
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

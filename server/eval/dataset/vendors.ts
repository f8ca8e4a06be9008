/**
 * Vendors and tools: accounts, limits, contracts, who administers what.
 */
import { Part } from "./types";

export function vendorsPart(): Part {
  const p = new Part("ven");

  p.fact("datadog", "Our Datadog account is on the EU1 site (app.datadoghq.eu), not the US one; API keys are per team in Vault.", { s: "Datadog" });
  p.fact("pagerduty", "PagerDuty lives at tallyfox.pagerduty.com. Someone can only be added to a rotation once they have an Okta account; team EMs edit their own schedules.", { s: "PagerDuty" });
  p.fact("stripe-accounts", "We have two Stripe accounts: Tallyfox Inc for US customers and Tallyfox Ltd, the legacy UK/EU account that now only processes ACH and old subscriptions.", { s: "Stripe" });
  p.fact("adyen-support", "Adyen's merchant account is TallyfoxEU. Adyen support is reached through the ticket form in the Customer Area, not by email.", { s: "Adyen" });
  p.fact("avalara-contract", "The Avalara contract renews every February; above 2 million API calls a year we pay per call.", { s: "Avalara" });
  p.fact("postmark", "Postmark setup: transactional mail uses the 'outbound' message stream and the sender signature billing@tallyfox.com; Growth admins the account.", { s: "Postmark", d: 110 });
  p.fact("twilio", "The Twilio account belongs to Growth; the messaging service SID is in Vault next to the auth token.", { s: "Twilio" });
  p.fact("cloudflare", "Cloudflare fronts tallyfox.com and app.tallyfox.com (DNS and WAF); api.tallyfox.com is not proxied through Cloudflare and terminates TLS at our load balancer.", { s: "Cloudflare" });
  p.fact("sentry", "In Sentry every service has its own project under the tallyfox organization, and releases are tagged with the git SHA.", { s: "Sentry", d: 250 });
  p.fact("snowflake-budget", "The Snowflake budget is 2,000 credits a month; Nora Lindqvist gets an alert at 80% usage.", { s: "Snowflake" });
  p.fact("github", "GitHub: organization tallyfox with Okta SSO enforced. Personal access tokens must be fine-grained and expire within 90 days.", { s: "GitHub" });
  p.fact("okta", "Okta is the identity provider for all employees; new applications are added to Okta by IT (Ben).", { s: "Okta" });
  p.fact("lokalise", "Lokalise holds our translations; supported languages are English, German, French, Spanish, Dutch and Japanese.", { s: "Lokalise" });
  p.fact("zendesk", "Zendesk is the support tool; ticket numbers look like #58213 and engineering can get light-agent seats to read tickets.", { s: "Zendesk" });
  p.fact("vercel", "The Vercel team 'tallyfox' hosts customer-portal and the marketing site; Marco Rossi and Leah Goldberg are the team owners.", { s: "Vercel" });
  p.fact("aws-accounts", "AWS accounts: tallyfox-prod, tallyfox-staging and tallyfox-sandbox. Console and CLI access goes through AWS IAM Identity Center (SSO) with your Okta login.", { s: "AWS", r: [40] });
  p.fact("terraform-cloud", "Terraform Cloud has one workspace per environment; plans run on every PR and applies need an approval from Platform.", { s: "Terraform Cloud" });
  p.fact("snyk", "Snyk scans dependencies and container images on every PR; critical findings block the merge.", { s: "Snyk" });
  p.fact("teleport", "Teleport (teleport.tallyfox.internal) is the bastion for production database and SSH access; sessions are recorded.", { s: "Teleport" });
  p.fact("onepassword", "1Password Business: Ben Adeyemi manages vault permissions; ask him to be added to your team's vault.", { s: "1Password", d: 340 });
  p.fact("statuspage", "status.tallyfox.com runs on Atlassian Statuspage; the incident commander posts updates there for sev1 and sev2.", { s: "Statuspage" });
  p.fact("metabase", "Metabase (metabase.tallyfox.internal) is the BI tool for internal dashboards on top of Snowflake.", { s: "Metabase" });
  p.fact("fivetran", "Fivetran loads Zendesk and HubSpot data into Snowflake every 6 hours.", { s: "Fivetran" });
  p.fact("hubspot", "HubSpot is the CRM; Sales owns it, and engineering only touches it through the Fivetran sync.", { s: "HubSpot" });
  p.fact("xero-limits", "Xero's API limits: 60 calls per minute per tenant and 5,000 calls per day per tenant.", { s: "Xero" });
  p.fact("intuit-review", "Our QuickBooks app is listed in Intuit's app store; Intuit's security review has to be renewed every September.", { s: "QuickBooks" });
  p.fact("vanta", "Vanta collects SOC 2 evidence. The SOC 2 Type II audit happens every March with Schellman as auditor.", { s: "SOC 2" });
  p.fact("aws-bill", "The AWS bill is around $180k a month; RDS and the EKS worker nodes are the biggest items.", { s: "AWS" });
  p.fact("wise", "Wise provides both our FX rate API and the payout rails for merchants in GBP and EUR.", { s: "Wise", d: 75 });
  p.fact("google-workspace", "Email and calendars are Google Workspace; shared drives are per team and external sharing is off by default.", { s: "Google Workspace" });
  p.fact("clickhouse-cloud", "ClickHouse runs on ClickHouse Cloud (service usage-prod-eu) for usage-metering and reporting-api; Data pays for it from its budget.", { s: "ClickHouse" });
  p.fact("opensearch", "OpenSearch is the managed Amazon OpenSearch Service domain search-prod-eu, 3 data nodes.", { s: "OpenSearch" });

  p.ask("direct", "which datadog site are we on?", "datadog");
  p.ask("paraphrase", "why can't I be added to the on-call schedule yet?", "pagerduty");
  p.ask("paraphrase", "how do I contact adyen support?", "adyen-support");
  p.ask("word-form", "when is the avalara contract renewing?", "avalara-contract");
  p.ask("direct", "is api.tallyfox.com behind cloudflare?", "cloudflare");
  p.ask("paraphrase", "who manages the twilio account?", "twilio");
  p.ask("paraphrase", "what's the monthly snowflake spend limit?", "snowflake-budget");
  p.ask("paraphrase", "rules for github personal tokens", "github");
  p.ask("paraphrase", "which languages is the product translated into?", "lokalise");
  p.ask("paraphrase", "can engineers read support tickets?", "zendesk");
  p.ask("common-words", "how do I get into the aws console or use the aws cli for the production account?", "aws-accounts");
  p.ask("word-form", "who approves terraform applies?", "terraform-cloud");
  p.ask("paraphrase", "how do I connect to a production database for a quick read-only query?", ["teleport", "conv:prod-access"]);
  p.ask("paraphrase", "what do we use for internal BI dashboards?", "metabase");
  p.ask("paraphrase", "how does zendesk data get into the warehouse?", "fivetran");
  p.ask("direct", "when is the SOC 2 audit?", "vanta");
  p.ask("synonym", "what are our biggest cloud costs?", "aws-bill");
  p.ask("identifier", "stripe accounts inc vs ltd", "stripe-accounts");
  p.ask("paraphrase", "when does the intuit app review need renewing?", "intuit-review");
  p.ask("word-form", "who is the owner of the vercel team?", "vercel");
  p.ask("paraphrase", "which sender address do transactional emails come from?", "postmark");
  p.ask("synonym", "is our elasticsearch self hosted?", "opensearch");
  p.ask("paraphrase", "is clickhouse self-managed?", "clickhouse-cloud");
  p.ask("paraphrase", "will a vulnerable dependency block my PR from merging?", "snyk");

  p.ask("identifier", "Schellman audit, when?", "vanta");
  p.ask("direct", "postmark message stream", "postmark");
  p.ask("direct", "sentry releases git sha", "sentry");

  return p;
}

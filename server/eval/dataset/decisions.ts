/**
 * Decisions, many of which changed over time: the old memory stays in the organization's memory (often it
 * was used a lot while it was true), a newer one replaces it. Questions ask for the current state and are
 * labelled with the newest memory only. Plus architecture decisions that never changed.
 */
import { Part } from "./types";

export function decisionsPart(): Part {
  const p = new Part("dec");

  // Each entry: [name, subject, old text, old daysAgo, old reinforcements, new text, new daysAgo, question].
  const changes: Array<[string, string, string, number, number[], string, number, string]> = [
    ["flags", "feature flags",
      "Feature flags are managed in LaunchDarkly; every team has its own LaunchDarkly project and flags are named team.feature.", 520, [430, 360, 300],
      "We've moved feature flags off LaunchDarkly to self-hosted Unleash (flags.tallyfox.internal). LaunchDarkly's contract ends in December, so new flags must be created in Unleash.", 45,
      "where do I create a new feature flag?"],
    ["email", "email provider",
      "Transactional email goes out through SendGrid; the API key is in Vault at secret/growth/sendgrid.", 700, [600, 500, 400],
      "After the SendGrid suspension (INC-2226) transactional email moved to Postmark; the server token is in Vault at secret/growth/postmark. SendGrid is only kept for the marketing newsletter.", 118,
      "which provider sends our password reset emails?"],
    ["errors", "error tracking",
      "Backend exceptions are reported to Rollbar; each service has its own Rollbar project.", 600, [500],
      "All services report errors to Sentry now (sentry.io organization 'tallyfox'); Rollbar is cancelled at the end of February.", 260,
      "what error tracking tool are we using?"],
    ["ci", "CI",
      "CI runs on our Jenkins at jenkins.tallyfox.internal; pipelines are defined in each repo's Jenkinsfile.", 800, [700, 600],
      "All CI runs on GitHub Actions with self-hosted runners in the ci-runners EKS node group. Jenkins has been shut down.", 340,
      "where do our CI pipelines run these days?"],
    ["deploy-tool", "deployments",
      "Production deploys go through Spinnaker pipelines; ask Platform for access to the Spinnaker UI.", 750, [650],
      "ArgoCD replaced Spinnaker for deployments. Each service has a <service>-staging and a <service>-prod application in ArgoCD.", 330,
      "did we finish moving off Spinnaker, what's the deploy tool now?"],
    ["handover", "on-call",
      "On-call handover happens on Mondays at 10:00 in the #oncall channel.", 400, [330, 260, 190],
      "On-call shifts now hand over on Wednesdays at 11:00 CET, moved from Monday so that weekend incidents are followed up by the person who handled them.", 70,
      "what day does the pager rotation switch over to the next person?"],
    ["freeze", "deploy freeze",
      "No production deploys after 15:00 on Fridays.", 380, [300, 220],
      "The deploy freeze now runs from Thursday 17:00 until Monday 09:00 for all services; hotfixes during the freeze need an incident ticket.", 55,
      "can I deploy to prod on a friday morning?"],
    ["billing-pg", "billing database",
      "The billing database runs Postgres 12 on RDS (db.r5.2xlarge).", 450, [400],
      "The billing database was upgraded to PostgreSQL 15 on RDS (db.r6g.2xlarge) during the August maintenance window.", 85,
      "what postgres version is the billing db on?"],
    ["node", "runtimes",
      "Our Node.js services run on Node 16 LTS.", 500, [420],
      "Standard Node runtime for services is Node 20 LTS; the base image pipeline no longer builds Node 16 images.", 150,
      "which node version should a new typescript service use?"],
    ["java", "runtimes",
      "JVM services (billing-api, ledger, dunning-worker) run on Java 11.", 480, [400],
      "All JVM services are on Java 21 now. Virtual threads are allowed in new code, but not yet in billing-api's request path.", 140,
      "what JDK are the kotlin services running on?"],
    ["region", "data residency",
      "All customer data is hosted in AWS eu-west-1 (Ireland).", 600, [500, 400],
      "Since the US region launch in April, US customers are hosted in us-east-1; EU customers stay in eu-west-1, and a workspace's region can't be changed after signup.", 200,
      "where is customer data hosted for american customers?"],
    ["platform-em", "Platform team",
      "Daniel Cho is the engineering manager of the Platform team.", 700, [500, 300],
      "Ana Lopes is the Platform engineering manager from August 1; Daniel Cho moved to lead the new Infrastructure Cost group.", 95,
      "who manages the platform team?"],
    ["paging", "on-call",
      "Opsgenie handles our on-call schedules and alert routing.", 650, [550],
      "PagerDuty replaced Opsgenie for on-call schedules; every team has a PagerDuty service and an escalation policy named after the team.", 300,
      "what's our paging tool?"],
    ["passwords", "security",
      "Shared team passwords are kept in LastPass.", 720, [600],
      "Shared credentials moved from LastPass to 1Password; each team has a vault named after the team. Customer credentials are never stored there.", 350,
      "where do we keep shared passwords for the team?"],
    ["warehouse", "data warehouse",
      "Analytics data lives in Redshift (cluster analytics-prod).", 560, [450],
      "The data warehouse is Snowflake (account tallyfox.eu-west-1); the Redshift cluster was decommissioned after the migration.", 230,
      "which data warehouse do we use for analytics?"],
    ["invoice-numbers", "invoice numbering",
      "Invoice numbers follow INV-YYYY-NNNNN, sequential per workspace.", 540, [400],
      "Customers can now choose their own invoice number prefix; the default format is <PREFIX>-<YEAR>-<sequence>, still gap-free per workspace because several countries require it.", 110,
      "what format are invoice numbers in?"],
    ["api-version", "public API",
      "The public API's default version is v1; v2 is in beta and must be requested explicitly.", 480, [380],
      "API v2 has been the default for new API keys since April. v1 keys keep working until 2027-06-30, after which v1 is switched off.", 210,
      "which API version do new keys get by default?"],
    ["log-retention", "logging",
      "Datadog logs are retained for 30 days.", 450, [350],
      "To cut Datadog costs, logs are kept for 15 days in all indexes except audit and payments (30 days). Older logs are archived to S3 and can be rehydrated.", 100,
      "how long do we keep application logs?"],
    ["cadence", "process",
      "Engineering works in two-week sprints starting on Mondays.", 600, [500, 400],
      "We dropped sprints for six-week cycles followed by a two-week cool-down (Shape Up style); cycle work is picked in the betting table meeting.", 180,
      "how long are our sprints?"],
    ["standup", "process",
      "Daily standup is at 9:30 on Zoom.", 400, [300],
      "Standups are async now: post your update in the team's #standup thread by 10:15. There's a live standup only on Mondays.", 90,
      "what time is the daily standup?"],
    ["escalation", "support",
      "Support escalates bugs to engineering by emailing support-eng@tallyfox.com.", 500, [400],
      "Support escalations go through the #support-escalations Slack channel using the Linear escalation form; the support-eng@ mailbox is no longer monitored.", 140,
      "how does support hand a bug over to engineering?"],
    ["tracker", "process",
      "Engineering tickets live in Jira (projects BILL, PAY, PLAT).", 700, [600, 500],
      "We moved from Jira to Linear; team keys stayed the same (BILL, PAY, PLAT) and old Jira links redirect through the importer.", 320,
      "where do we track engineering tickets?"],
    ["docs", "documentation",
      "Design docs are written in Confluence in the ENG space.", 650, [550],
      "Design docs and RFCs now live in Notion under Engineering → RFCs; Confluence is read-only.", 280,
      "where should I write up an RFC?"],
    ["kafka", "Kafka",
      "We run our own Kafka cluster on EC2 (kafka-01 to kafka-05), managed by Platform.", 580, [480],
      "Kafka moved to Amazon MSK (cluster msk-prod-eu); the self-managed EC2 brokers were turned off in April.", 190,
      "are we still running kafka brokers ourselves?"],
    ["tax-vendor", "tax",
      "tax-engine uses TaxJar for US sales tax.", 610, [500],
      "TaxJar was replaced by Avalara AvaTax for all countries; tax-engine's TaxJar client was removed in v2.0.", 250,
      "which tax calculation vendor do we use?"],
    ["psp", "payments",
      "All card payments go through Stripe.", 640, [550, 450],
      "EU card payments now go through Adyen (lower interchange fees, better 3DS handling); Stripe still processes US cards and all ACH payments.", 270,
      "which payment processor handles european card payments?"],
    ["frontend-tests", "customer-portal",
      "Frontend unit tests use Jest with React Testing Library.", 500, [400],
      "customer-portal switched from Jest to Vitest; new test files must import from vitest and the Jest config was deleted.", 130,
      "jest or vitest for new portal tests?"],
    ["vpn", "IT",
      "Access to internal tools goes through the OpenVPN server vpn.tallyfox.com.", 600, [500, 400],
      "OpenVPN was replaced by Tailscale: install the Tailscale client and log in with Okta to reach *.tallyfox.internal.", 210,
      "how do I connect to internal tools from home?"],
    ["mobile-train", "mobile releases",
      "Mobile apps are released weekly on Tuesdays.", 420, [350],
      "Mobile releases are every two weeks now (Tuesday of even weeks) because App Store review kept delaying the weekly train.", 75,
      "how often do we ship the mobile app?"],
    ["sla", "enterprise plan",
      "The Enterprise plan SLA is 99.9% monthly uptime.", 500, [400, 300],
      "The Enterprise SLA is 99.95% monthly uptime for contracts signed or renewed after July 1; older contracts keep 99.9% until renewal.", 120,
      "what uptime do we promise enterprise customers?"],
    ["escalation-timeout", "on-call",
      "PagerDuty escalates an unacknowledged page to the secondary after 15 minutes.", 450, [300],
      "Unacknowledged sev1 pages now escalate to the secondary on-call after 5 minutes (15 minutes for sev2 and lower).", 65,
      "how long before an unanswered critical page goes to the backup on-call person?"],
    ["rate-limit", "public API",
      "The public API allows 100 requests per second per API key.", 400, [300, 200],
      "The public API rate limit was raised to 250 requests per second per key, with bursts up to 500; Enterprise keys can be raised further on request.", 80,
      "what's the api rate limit per key?"],
    ["approvals", "code review",
      "Pull requests need one approving review before merge.", 450, [350, 250],
      "Pull requests need two approvals in repos that are in PCI scope (payments-gateway, ledger, payout-scheduler); one approval is enough elsewhere.", 160,
      "how many approvals does a payments-gateway PR need?"],
    ["laptop", "IT",
      "Engineers get a 14-inch MacBook Pro with 16 GB RAM.", 600, [450],
      "The standard engineering laptop is now a MacBook Pro M3 with 36 GB of memory; request it through the IT portal, Ben Adeyemi handles orders.", 150,
      "how much ram do new engineering laptops have?"],
  ];
  for (const [name, subject, oldText, oldDays, oldReinforced, newText, newDays, question] of changes) {
    p.about(subject);
    p.decision(`${name}-old`, oldText, { d: oldDays, r: oldReinforced, c: 0.85 });
    p.decision(`${name}-new`, newText, { d: newDays, c: 0.9 });
    // tax-engine's own description also names the current vendor, so it answers too.
    const alsoAnswers = name === "tax-vendor" ? ["svc:tax-engine/avalara"] : [];
    p.ask("changed-over-time", question, [`${name}-new`, ...alsoAnswers], `${name}-old`);
  }
  // A few stated differently, as people ask them.
  p.ask("changed-over-time", "is LaunchDarkly still what we use for toggles?", "flags-new", "flags-old");
  p.ask("changed-over-time", "vault path for the transactional email api key", "email-new", "email-old");
  p.ask("changed-over-time", "can I still connect with openvpn?", "vpn-new", "vpn-old");

  // Three versions of the staging reset schedule.
  p.about("staging");
  p.decision("staging-v1", "The staging database is reset from an anonymized production snapshot every Sunday night.", { d: 420, r: [350, 280], c: 0.85 });
  p.decision("staging-v2", "Staging now resets every night at 03:00 UTC from the anonymized snapshot.", { d: 160, r: [100], c: 0.85 });
  p.decision("staging-v3", "Nightly staging resets are paused until the end of November while Payments runs a long migration rehearsal; until then staging resets weekly on Sundays.", { d: 20, c: 0.9 });
  p.ask("changed-over-time", "how often does staging get reset right now?", "staging-v3", ["staging-v1", "staging-v2"]);

  // Payments management while Priya is on leave (the old fact is part of a service's ownership note).
  p.about("Payments team");
  p.fact("payments-em-old", "Priya Raman is the engineering manager of the Payments team.", { d: 600, r: [400, 200], c: 0.9 });
  p.fact("payments-em-new", "Priya Raman is on parental leave until January 2027; Kwame Mensah is acting engineering manager for Payments until she's back.", { d: 40, c: 0.9 });
  p.ask("changed-over-time", "who is the payments engineering manager right now?", "payments-em-new", ["payments-em-old", "svc:payments-gateway/owner"]);

  // Architecture decisions that still hold.
  p.about("architecture");
  p.decision("adr-012", "ADR-012: money amounts are stored as integers in minor units (cents) together with an ISO 4217 currency code. Never use floats or doubles for money.", { c: 0.95, r: [200, 90, 30] });
  p.decision("adr-019", "ADR-019: services call each other synchronously over gRPC; asynchronous events go over Kafka with Protobuf schemas registered in the schema registry.");
  p.decision("adr-023", "ADR-023: every service owns its database. No cross-service joins or shared tables; read another team's data through its API or its Kafka events.", { r: [120] });
  p.decision("adr-027", "ADR-027: new primary keys are UUIDv7, so ids sort by creation time.");
  p.decision("adr-031", "ADR-031 (multi-tenancy): every table with customer data has a workspace_id column, and Postgres row-level security is enabled on the billing and ledger databases.");
  p.decision("adr-034", "ADR-034: timestamps are stored in UTC (timestamptz); converting to the workspace's timezone happens only in the UI and in PDFs.");
  p.decision("adr-038", "ADR-038: no new services in Ruby. admin-console stays on Rails, but new backend code is written in Go or Kotlin.");
  p.decision("adr-041", "ADR-041: public API errors use RFC 7807 problem+json with a stable `code` field such as INVOICE_NOT_FOUND.");
  p.decision("adr-044", "ADR-044: all AWS resources are managed with Terraform. Clicking things together in the AWS console is only allowed during incidents and must be back-ported to Terraform within a week.");
  p.decision("adr-046", "ADR-046: GraphQL is only used by mobile-bff; public and internal APIs stay REST and gRPC.");
  p.decision("adr-050", "ADR-050: tracing uses OpenTelemetry with 10% sampling in production and 100% in staging; traces are sent to Datadog APM.");
  p.decision("immutable-invoices", "Invoices are immutable once finalized. Mistakes are corrected by issuing a credit note and, if needed, a new invoice, never by editing the original.", { c: 0.95, r: [45] });
  p.decision("flag-cleanup", "Feature flags must be removed within 30 days of a full rollout; the flag owner automatically gets a Linear ticket for the cleanup.");
  p.decision("no-secrets-in-git", "Secrets never go in env files committed to git; services read them from Vault through the vault-agent sidecar.", { c: 0.95 });
  p.decision("adr-052", "ADR-052: new internal services expose Prometheus-style metrics on /metrics; the Datadog agent scrapes them, so no direct StatsD calls in new code.");

  p.ask("paraphrase", "is it ok to store prices as doubles?", "adr-012");
  p.ask("paraphrase", "can my service read straight from the billing team's tables?", "adr-023");
  p.ask("identifier", "ADR 31 multi tenancy", "adr-031");
  p.ask("paraphrase", "what kind of ids should new tables use?", "adr-027");
  p.ask("paraphrase", "how do we fix a mistake on an invoice that's already been sent?", "immutable-invoices");
  p.ask("common-words", "I made an S3 bucket by hand in the console to get something working, is that ok or do I have to do something else?", "adr-044");
  p.ask("direct", "error response format for the public api", "adr-041");
  p.ask("paraphrase", "can I write the new service in ruby?", "adr-038");
  p.ask("paraphrase", "which timezone should dates be saved in the database?", "adr-034");
  p.ask("synonym", "should new internal APIs be graphql?", "adr-046");
  p.ask("word-form", "how are services communicating with each other, sync and async?", "adr-019");
  p.ask("paraphrase", "when do I have to delete a flag after it's fully rolled out?", "flag-cleanup");
  p.ask("paraphrase", "can I commit a .env file with the api keys?", "no-secrets-in-git");
  p.ask("synonym", "should my new service send statsd metrics?", "adr-052");
  p.ask("multi-fact", "what do we use now for feature flags and for error tracking?", ["flags-new", "errors-new"]);

  p.ask("identifier", "ADR-023 summary", "adr-023");
  p.ask("identifier", "adr12 money", "adr-012");
  p.ask("direct", "RFC 7807 errors", "adr-041");
  p.ask("identifier", "what is msk-prod-eu?", "kafka-new", "kafka-old");
  p.ask("identifier", "in which tax-engine version was the TaxJar client removed?", "tax-vendor-new");
  p.ask("changed-over-time", "is CI still on jenkins or GHA?", "ci-new", "ci-old");
  p.ask("changed-over-time", "which email service sends invoices now?", "email-new", "email-old");
  p.ask("changed-over-time", "are the JVM services still on java 11?", "java-new", "java-old");
  p.ask("changed-over-time", "what's the standup format now?", "standup-new", "standup-old");
  p.ask("changed-over-time", "do we still use opsgenie for paging?", "paging-new", "paging-old");
  p.ask("changed-over-time", "what's the current staging refresh schedule?", "staging-v3", ["staging-v1", "staging-v2"]);
  p.ask("changed-over-time", "how are invoices numbered?", "invoice-numbers-new", "invoice-numbers-old");
  p.ask("synonym", "which PSP processes US card payments?", "psp-new", "psp-old");
  p.ask("word-form", "once an invoice is finalized can it still be edited?", "immutable-invoices");
  p.ask("common-words", "is it possible for us to change which region a customer's data is kept in after they have signed up?", "region-new", "region-old");
  p.ask("common-words", "is it ok for me to go ahead and merge my pull request if only one person has looked at it?", "approvals-new", "approvals-old");
  p.ask("common-words", "can you tell me what it is that we use for the builds and tests that run when I open a pull request?", "ci-new", "ci-old");
  p.ask("multi-fact", "what are our logging rules: how long are logs kept and what must never be logged?", ["log-retention-new", "conv:logging"]);
  p.ask("multi-fact", "billing database: which postgres version, and how big is billing-api's connection pool in prod?", ["billing-pg-new", "cfg:db-pool"]);

  return p;
}

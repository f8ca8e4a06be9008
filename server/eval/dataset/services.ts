/**
 * The service catalog as people remember it: who owns what, what it runs on, how it is shipped and rolled
 * back, where its runbook is, and the odd behaviour everyone has to know about.
 */
import { Part } from "./types";

export function servicesPart(): Part {
  const p = new Part("svc");

  // billing-api
  p.about("billing-api");
  p.fact("billing-api/owner", "billing-api belongs to Billing Core (EM Marta Silva). Jonas Weber is the tech lead and the first person to ask about it.", { c: 0.95, d: 310, r: [95, 20] });
  p.fact("billing-api/stack", "billing-api is Kotlin on Spring Boot, repo tallyfox/billing-api; its data lives in the `billing` Postgres database on RDS.", { d: 400 });
  p.procedure("billing-api/deploy", "Shipping billing-api: merge to main, GitHub Actions builds the image and ArgoCD syncs it to staging on its own. For production, approve the billing-api-prod sync in ArgoCD once the smoke tests are green.", { d: 150, r: [40] });
  p.procedure("billing-api/rollback", "To roll back billing-api, open billing-api-prod in ArgoCD, choose the last healthy revision under History and press Rollback. Flyway migrations are not undone by this, so write a forward fix for schema problems.", { d: 140 });
  p.fact("billing-api/runbook", "Runbook for billing-api: ops/runbooks/billing-api.md. Its alerts page the 'Billing Core' service in PagerDuty.", { d: 200 });
  p.fact("billing-api/health", "billing-api serves /actuator/health on the management port 8081, not on the public port 8080.", { d: 90 });
  p.ask("paraphrase", "who's the go-to person for questions about the billing api?", "billing-api/owner");
  p.ask("word-form", "rolling back billing-api after a bad release", "billing-api/rollback");
  p.ask("synonym", "billing api healthcheck port", "billing-api/health");
  p.ask("identifier", "BillingAPI repo and database", "billing-api/stack");
  p.ask("multi-fact", "billing-api: how do I ship it to production and how do I undo it if it breaks?", ["billing-api/deploy", "billing-api/rollback"]);

  // invoice-renderer
  p.about("invoice-renderer");
  p.fact("invoice-renderer/owner", "invoice-renderer (the thing that turns invoices into PDFs) is maintained by Billing Core; day-to-day questions go to Irene Costa, who wrote most of it.", { c: 0.9 });
  p.fact("invoice-renderer/stack", "invoice-renderer is a Node.js service driving headless Chromium through Puppeteer. Finished PDFs are written to the S3 bucket tallyfox-invoices-prod.", { d: 260 });
  p.observation("invoice-renderer/slow-rollout", "invoice-renderer's image is huge because of Chromium, so a production rollout takes around 15 minutes; pods sitting in ContainerCreating for a while is normal.", { c: 0.75 });
  p.fact("invoice-renderer/fonts", "Fonts for invoice PDFs are baked into the invoice-renderer image from assets/fonts. Supporting a language with new glyphs (Japanese, for example) needs a new image build.", { d: 120 });
  p.fact("invoice-renderer/runbook", "invoice-renderer alerts go to the Billing Core PagerDuty service. The runbook (ops/runbooks/invoice-renderer.md) starts with checking the Chromium pool.");
  p.ask("paraphrase", "who works on generating the invoice pdf files?", "invoice-renderer/owner");
  p.ask("paraphrase", "where do generated invoice PDFs get stored?", "invoice-renderer/stack");
  p.ask("common-words", "why does it take so long for a new version of the invoice pdf service to come up in production, is something wrong?", "invoice-renderer/slow-rollout");
  p.ask("direct", "invoice PDF fonts for Japanese", "invoice-renderer/fonts");

  // dunning-worker
  p.about("dunning-worker");
  p.fact("dunning-worker/owner", "Billing Core also owns dunning-worker. Jonas Weber is its listed owner in Backstage, but Emily Park decides the dunning policy itself.");
  p.fact("dunning-worker/schedule-old", "dunning-worker retries a failed card payment 3 times over 7 days and then cancels the subscription.", { d: 430, c: 0.85, r: [380, 300] });
  p.decision("dunning-worker/schedule-new", "New dunning schedule: a failed card payment is retried on days 1, 3, 5 and 7 after the due date; after the fourth failure the subscription goes past_due (not cancelled) and the billing contact gets an email.", { d: 62, c: 0.9 });
  p.fact("dunning-worker/queue", "dunning-worker consumes the SQS queue dunning-jobs-prod. If the queue backs up, scale the deployment up; don't purge the queue, every message is a customer's payment retry.");
  p.procedure("dunning-worker/pause", "To pause dunning for one customer (during a payment dispute, for instance), set the dunning_paused flag on the customer in admin-console. The worker skips them until someone clears it.");
  p.ask("changed-over-time", "how many times do we retry a failed card payment before the subscription goes past due?", "dunning-worker/schedule-new", "dunning-worker/schedule-old");
  p.ask("paraphrase", "can I stop the payment reminder emails for one customer who's disputing an invoice?", "dunning-worker/pause");
  p.ask("direct", "dunning queue backed up, should I purge it?", "dunning-worker/queue");
  p.ask("paraphrase", "who decides how we chase customers whose payments failed?", "dunning-worker/owner");

  // tax-engine
  p.about("tax-engine");
  p.fact("tax-engine/owner", "tax-engine is a Go service owned by Billing Core; Felix Wagner knows the Avalara integration best.");
  p.fact("tax-engine/avalara", "tax-engine calls Avalara AvaTax for every invoice line and caches rates in Redis for 24 hours. If Avalara is down it falls back to the cached rate and flags the invoice tax_estimated=true.", { d: 240 });
  p.fact("tax-engine/vies", "For EU reverse-charge VAT, tax-engine needs a validated VAT ID; validation goes through the VIES service and results are cached for 30 days.");
  p.ask("paraphrase", "what happens to sales tax calculation when our tax vendor has an outage?", "tax-engine/avalara");
  p.ask("direct", "how long do we cache VIES VAT ID validation results?", "tax-engine/vies");
  p.ask("direct", "who knows the avalara integration?", "tax-engine/owner");

  // payments-gateway
  p.about("payments-gateway");
  p.fact("payments-gateway/owner", "payments-gateway is owned by the Payments team: Kwame Mensah is tech lead and Priya Raman the engineering manager.", { d: 380, c: 0.9, r: [200, 120] });
  p.fact("payments-gateway/stack", "payments-gateway (Go) is the only service allowed to call Stripe and Adyen directly; everything else uses its internal gRPC API on port 9090.", { c: 0.95, r: [30] });
  p.procedure("payments-gateway/deploy", "payments-gateway is in PCI scope: a production sync in ArgoCD needs a second approver from Payments, and deploys are only allowed on weekdays between 09:00 and 16:00 CET.", { d: 170 });
  p.procedure("payments-gateway/rollback", "After rolling back payments-gateway with ArgoCD, check that the Stripe and Adyen webhook endpoints still answer 200 on the Payments dashboard: an older revision may not know newer webhook event types.");
  p.fact("payments-gateway/runbook", "payments-gateway pages the Payments PagerDuty rotation; a sev1 escalates to Priya after 10 minutes. Runbook: ops/runbooks/payments-gateway.md.", { d: 330 });
  p.ask("paraphrase", "can I push a payments gateway release at 7pm on a tuesday?", "payments-gateway/deploy");
  p.ask("paraphrase", "which of our services is allowed to talk to stripe?", "payments-gateway/stack");
  p.ask("identifier", "PaymentsGateway grpc port", "payments-gateway/stack");
  p.ask("word-form", "what to verify after a payments-gateway rollback", "payments-gateway/rollback");
  p.ask("synonym", "who gets paged when the payment gateway is down", "payments-gateway/runbook");

  // ledger
  p.about("ledger");
  p.fact("ledger/owner", "ledger is owned by Payments; Nadia Petrenko has been its main developer since it was split out of billing-api.");
  p.fact("ledger/append-only", "ledger keeps double-entry journal entries in the `ledger` Postgres database. Tables are append-only: corrections are made with reversing entries, never with UPDATE.", { c: 0.95, r: [60] });
  p.fact("ledger/migrations-old", "Any Payments engineer can approve a schema migration on the ledger database.", { d: 380 });
  p.decision("ledger/migrations-new", "From now on, schema migrations on the ledger database need approval from both Kwame Mensah and Aisha Bello (DBA) on the PR before merge.", { d: 105, c: 0.9 });
  p.fact("ledger/recon", "The ledger reconciliation job runs nightly at 02:30 UTC and compares ledger balances with the Stripe and Adyen settlement reports; mismatches are posted to #payments-recon.");
  p.ask("paraphrase", "can I fix a wrong row in the ledger with an update statement?", "ledger/append-only");
  p.ask("changed-over-time", "who has to sign off on a ledger db migration?", "ledger/migrations-new", "ledger/migrations-old");
  p.ask("direct", "when does ledger reconciliation run?", "ledger/recon");
  p.ask("paraphrase", "who is the main developer of the bookkeeping service?", "ledger/owner");

  // payout-scheduler
  p.about("payout-scheduler");
  p.fact("payout-scheduler/batch", "payout-scheduler (Python, Payments team) batches merchant payouts every weekday at 14:00 UTC; the cut-off for a payout to make that day's batch is 13:30 UTC.");
  p.procedure("payout-scheduler/retry", "If a payout batch fails halfway, don't rerun the whole batch: run `payouts retry --batch <id>` from the ops toolbox, which skips payouts that already have a provider reference.", { c: 0.9 });
  p.ask("paraphrase", "what time do merchant payouts go out each day?", "payout-scheduler/batch");
  p.ask("common-words", "the payout run crashed in the middle of the batch, is it safe to just run it again from the start?", "payout-scheduler/retry");

  // fx-rates
  p.about("fx-rates");
  p.fact("fx-rates/source-old", "fx-rates pulls the daily ECB reference rates every morning at 16:00 CET publication time.", { d: 500, r: [420, 350, 260] });
  p.decision("fx-rates/source-new", "fx-rates now takes exchange rates from Wise's API every hour and only falls back to the ECB reference rates when Wise is unavailable.", { d: 75, c: 0.9 });
  p.fact("fx-rates/lock", "Invoices lock the exchange rate when they are finalized, so later rate refreshes never change the amount of an issued invoice.", { c: 0.9 });
  p.ask("changed-over-time", "where do our currency exchange rates come from?", "fx-rates/source-new", "fx-rates/source-old");
  p.ask("paraphrase", "if the conversion rate moves after an invoice is sent, does the invoice total change?", "fx-rates/lock");

  // auth-service
  p.about("auth-service");
  p.fact("auth-service/owner", "auth-service is owned by Identity (EM Oliver Brandt, tech lead Sofia Marin).", { d: 350 });
  p.fact("auth-service/tokens", "auth-service issues RS256 JWT access tokens valid for 15 minutes and refresh tokens valid for 30 days; the signing keys are stored in Vault under secret/identity/auth-service/jwt.", { r: [50] });
  p.procedure("auth-service/rotate", "JWT signing keys are rotated every quarter: publish the new key in the JWKS first, wait 24 hours for caches, switch auth-service to sign with it, and remove the old key after 30 days.", { d: 160 });
  p.ask("paraphrase", "how long does a login session token last before it expires?", "auth-service/tokens");
  p.ask("word-form", "rotation of the jwt signing key, what's the order of steps", "auth-service/rotate");
  p.ask("direct", "where are the auth signing keys stored?", "auth-service/tokens");
  p.ask("paraphrase", "who manages the team behind the login service?", "auth-service/owner");

  // sso-bridge
  p.about("sso-bridge");
  p.fact("sso-bridge/owner", "sso-bridge (Java) handles SAML and OIDC single sign-on for enterprise customers. Sofia Marin owns it; Okta, Azure AD and Google Workspace are the identity providers we test against.");
  p.procedure("sso-bridge/setup", "Setting up SSO for an enterprise customer: support creates an SSO connection in admin-console, sends the customer our SP metadata URL and waits for their IdP metadata. Identity only gets involved for custom attribute mapping.", { c: 0.9, r: [35] });
  p.fact("sso-bridge/skew", "sso-bridge accepts SAML assertions with up to 3 minutes of clock skew; SAML_CLOCK_SKEW errors almost always mean the customer's IdP server clock is wrong.");
  p.ask("paraphrase", "a customer wants their staff to log in with their Azure AD accounts, how do we set that up?", "sso-bridge/setup");
  p.ask("identifier", "SAML_CLOCK_SKEW", "sso-bridge/skew");

  // user-directory
  p.about("user-directory");
  p.fact("user-directory/what", "user-directory stores users, roles and team memberships and implements SCIM 2.0 so customers can provision users from their IdP. It's a TypeScript service owned by Identity.");
  p.ask("direct", "which service handles SCIM provisioning?", "user-directory/what");

  // api-gateway
  p.about("api-gateway");
  p.fact("api-gateway/what", "api-gateway is Kong running on the prod-eu and prod-us EKS clusters. Platform owns it; routes are declared in tallyfox/infra under kong/routes/*.yaml.", { d: 290 });
  p.procedure("api-gateway/route", "Adding a public route: add a YAML file under kong/routes in tallyfox/infra, get a Platform review, and decK applies it on merge. Never edit routes in the Kong admin UI, decK overwrites them.", { c: 0.9 });
  p.ask("paraphrase", "how do I expose a new endpoint on the public API?", "api-gateway/route");
  p.ask("synonym", "which k8s clusters is kong running on?", "api-gateway/what");

  // rate-limiter
  p.about("rate-limiter");
  p.fact("rate-limiter/what", "rate-limiter is a Go sidecar that enforces per-API-key quotas with a token bucket kept in Redis (cluster rl-redis-prod).");
  p.ask("synonym", "where are the api throttling counters kept?", "rate-limiter/what");

  // scheduler
  p.about("scheduler");
  p.fact("scheduler/what", "scheduler runs every team's cron jobs. Jobs are declared in scheduler/jobs/<team>/*.yaml and all schedules are in UTC, never local time.", { r: [15] });
  p.fact("scheduler/alerts", "A scheduler job that fails three runs in a row pages the owning team, not Platform; the owner is the `team:` field in the job's YAML.");
  p.ask("paraphrase", "what timezone are our cron schedules written in?", ["scheduler/what", "cfg:utc-only", "inc:INC-2270"]);
  p.ask("paraphrase", "who gets alerted when a cron job keeps failing?", "scheduler/alerts");

  // notification-hub
  p.about("notification-hub");
  p.fact("notification-hub/owner", "notification-hub (TypeScript, NestJS) sends every customer email, SMS and in-app notification. Growth owns it, with Tariq Aziz as tech lead.");
  p.procedure("notification-hub/templates", "Email templates live in notification-hub/templates as MJML. Copy changes can be merged by anyone in Growth, but new templates need a design review from Lina Petrova.");
  p.fact("notification-hub/sms", "SMS goes out through Twilio. notification-hub only texts numbers in countries on the allowlist (config/sms-countries.yaml), because of cost and SMS fraud.");
  p.ask("paraphrase", "who can change the wording of the payment reminder email?", "notification-hub/templates");
  p.ask("direct", "which countries can we send SMS to?", ["notification-hub/sms", "cfg:sms-allowlist"]);
  p.ask("multi-fact", "which service sends our text messages, who owns it and which provider does it use?", ["notification-hub/owner", "notification-hub/sms"]);

  // customer-portal
  p.about("customer-portal");
  p.fact("customer-portal/owner", "customer-portal is the Next.js app customers log into at app.tallyfox.com. Growth owns it and Marco Rossi leads the frontend work.");
  p.fact("customer-portal/vercel", "customer-portal is hosted on Vercel, not on our Kubernetes clusters: every PR gets a preview URL and merging to main goes to production automatically.", { c: 0.9 });
  p.procedure("customer-portal/rollback", "To roll back customer-portal, promote the previous deployment in the Vercel dashboard (Instant Rollback). It takes seconds and needs no rebuild.");
  p.ask("synonym", "is the customer web app running on k8s?", "customer-portal/vercel");
  p.ask("paraphrase", "how do I undo a broken release of the portal quickly?", "customer-portal/rollback");
  p.ask("direct", "who leads frontend on the customer portal?", "customer-portal/owner");

  // onboarding-service
  p.about("onboarding-service");
  p.fact("onboarding-service/trial", "onboarding-service runs signup and the free trial, which lasts 14 days; Zoe Clarke built the new signup flow.");
  p.ask("paraphrase", "how many days do new signups get to try the product for free?", "onboarding-service/trial");

  // usage-metering
  p.about("usage-metering");
  p.fact("usage-metering/what", "usage-metering consumes usage events from the Kafka topic usage.events.v2 and aggregates them into hourly buckets in ClickHouse for metered billing. Data owns it (tech lead Ravi Kulkarni).");
  p.fact("usage-metering/dedupe", "usage-metering dedupes events by idempotency_key within a 48-hour window. Events replayed after that are counted twice, so replays of anything older than two days need the Data team's help.", { c: 0.9 });
  p.ask("direct", "which kafka topic does usage metering read?", "usage-metering/what");
  p.ask("common-words", "if a customer sends us their usage events from last week a second time, will they be billed twice for them?", "usage-metering/dedupe");

  // reporting-api
  p.about("reporting-api");
  p.fact("reporting-api/what", "reporting-api is a Python FastAPI service serving revenue, MRR and churn reports from ClickHouse; Data owns it.");
  p.fact("reporting-api/cache", "reporting-api caches report results for 10 minutes, so an invoice issued a moment ago may not show up in the customer's revenue report right away.");
  p.ask("common-words", "a customer says the invoice they just made is not showing up in their revenue report yet, is that normal?", "reporting-api/cache");
  p.ask("paraphrase", "which service produces the MRR and churn numbers customers see?", "reporting-api/what");

  // search-indexer
  p.about("search-indexer");
  p.fact("search-indexer/what", "search-indexer (Java) keeps the OpenSearch indices for invoices and customers in sync by reading the billing database's change stream through Debezium.");
  p.procedure("search-indexer/reindex", "Full reindex of search: run the reindex-all job in scheduler with the target alias. It builds a new index and swaps the alias when done, which takes about 3 hours on prod-eu.");
  p.ask("paraphrase", "how do I rebuild the search index from scratch?", "search-indexer/reindex");
  p.ask("synonym", "how does search stay in sync with the billing db?", "search-indexer/what");

  // warehouse-etl
  p.about("warehouse-etl");
  p.fact("warehouse-etl/what", "warehouse-etl is the dbt project in tallyfox/warehouse, scheduled by Airflow. Models run every 4 hours and Ravi Kulkarni reviews model changes.");
  p.ask("paraphrase", "how fresh is the data in the warehouse, how often is it refreshed?", "warehouse-etl/what");

  // webhook-dispatcher
  p.about("webhook-dispatcher");
  p.fact("webhook-dispatcher/owner", "webhook-dispatcher delivers events to customers' webhook URLs; Integrations owns it (tech lead Chloe Dubois).");
  p.fact("webhook-dispatcher/retries-old", "webhook-dispatcher retries a failed delivery 5 times within one hour, then gives up.", { d: 500, r: [410] });
  p.decision("webhook-dispatcher/retries-new", "webhook-dispatcher now retries failed deliveries with exponential backoff for up to 24 hours (12 attempts). After that the endpoint is disabled and the workspace admin gets an email.", { d: 150, c: 0.9 });
  p.fact("webhook-dispatcher/signing", "Webhook payloads are signed with HMAC-SHA256 in the Tallyfox-Signature header. Customers verify them with their endpoint secret, which they can roll from the portal.");
  p.procedure("webhook-dispatcher/replay", "To resend webhooks to a customer, use admin-console → Webhooks → Replay with a time range. Replays are limited to 50 per second per endpoint.");
  p.ask("changed-over-time", "how long do we keep retrying a webhook that fails?", "webhook-dispatcher/retries-new", "webhook-dispatcher/retries-old");
  p.ask("paraphrase", "how can customers check that a webhook really came from us?", "webhook-dispatcher/signing");
  p.ask("word-form", "replaying webhooks a customer missed", "webhook-dispatcher/replay");
  p.ask("multi-fact", "a customer's endpoint was down all weekend: did we keep retrying the webhooks, and how do I resend the ones they missed?", ["webhook-dispatcher/retries-new", "webhook-dispatcher/replay"]);

  // import-worker
  p.about("import-worker");
  p.fact("import-worker/limit-old", "CSV imports are limited to 20 MB per file; bigger files are rejected with IMPORT_FILE_TOO_LARGE.", { d: 420, r: [300] });
  p.decision("import-worker/limit-new", "The import file size limit was raised to 100 MB. Above that customers should split the file or use the bulk import API.", { d: 60 });
  p.fact("import-worker/encoding", "CSV imports must be UTF-8. Files saved from Excel on Windows (Windows-1252) are the usual cause of mangled accents in imported customer names.");
  p.ask("changed-over-time", "what's the maximum size of a CSV import file?", ["import-worker/limit-new", "cfg:import-max"], "import-worker/limit-old");
  p.ask("paraphrase", "customer names with accents look garbled after importing a spreadsheet", "import-worker/encoding");

  // export-worker
  p.about("export-worker");
  p.fact("export-worker/what", "export-worker generates CSV and Excel exports. Exports over 1 million rows are split into several files, and the download link is emailed and valid for 7 days.");
  p.ask("paraphrase", "how long is an export download link good for?", ["export-worker/what", "cfg:export-env"]);

  // accounting-sync
  p.about("accounting-sync");
  p.fact("accounting-sync/owner", "accounting-sync pushes invoices and payments to Xero and QuickBooks Online. It's TypeScript, owned by Integrations, and Lucas Moreau is the main developer.");
  p.fact("accounting-sync/qbo", "QuickBooks Online connections expire after 100 days without use; when a sync fails with QBO_AUTH_EXPIRED the customer has to reconnect QuickBooks from the portal.");
  p.ask("identifier", "qbo auth expired error on accounting sync", "accounting-sync/qbo");
  p.ask("paraphrase", "who works on the xero integration?", "accounting-sync/owner");

  // mobile-bff
  p.about("mobile-bff");
  p.fact("mobile-bff/what", "mobile-bff is the GraphQL (Apollo Server) backend for the iOS and Android apps, owned by Mobile (Hana Sato).");
  p.decision("mobile-bff/no-breaking", "No breaking changes to the mobile-bff schema: old app versions stay installed for months, so fields are deprecated and kept for at least 6 months before removal.", { c: 0.9, r: [70] });
  p.ask("paraphrase", "can I remove a field from the graphql schema the apps use?", "mobile-bff/no-breaking");

  // admin-console
  p.about("admin-console");
  p.fact("admin-console/access", "admin-console is the internal Rails back office used by Support. Access needs the admin-console Okta group, which Beatriz Rocha approves.");
  p.fact("admin-console/audited", "Every write action in admin-console (refunds, plan changes, impersonation) is recorded in audit-trail together with the support agent's email.");
  p.ask("paraphrase", "how do I get access to the support back office tool?", "admin-console/access");
  p.ask("word-form", "is impersonating a customer logged anywhere?", "admin-console/audited");

  // audit-trail
  p.about("audit-trail");
  p.fact("audit-trail/what", "audit-trail is owned by Security. It writes audit events to an S3 bucket with Object Lock in compliance mode (7-year retention), so nobody, not even admins, can delete them.");
  p.ask("paraphrase", "can audit logs be deleted by an admin?", "audit-trail/what");

  // The remaining owners, short, as people note them.
  p.fact("fx-rates/owner", "fx-rates belongs to Payments; Omar Haddad maintains it.", { s: "fx-rates" });
  p.fact("payout-scheduler/owner", "Owner of payout-scheduler: Payments team, main contact Arjun Mehta.", { s: "payout-scheduler" });
  p.fact("import-worker/owner", "import-worker and export-worker are both owned by Integrations; Mei Lin is the main contact for both.", { s: "import-worker" });
  p.fact("search-indexer/owner", "search-indexer is owned by Data; Lucas Moreau helped build it before moving to Integrations, but questions now go to Ravi Kulkarni.", { s: "search-indexer" });
  p.fact("scheduler/owner", "Platform owns scheduler, api-gateway and rate-limiter; Ana Lopes is the contact for all three.", { s: "scheduler" });
  p.ask("paraphrase", "who maintains the exchange rate service?", "fx-rates/owner");
  p.ask("common-words", "who is the right person to go to if I have a question about the thing that does the csv exports?", "import-worker/owner");

  // Dashboards, as the service catalog lists them: one per service, similar wording, a good source of near misses.
  const dashboards: Array<[string, string]> = [
    ["billing-api", "Billing Core / billing-api overview"], ["invoice-renderer", "Billing Core / PDF rendering"], ["dunning-worker", "Billing Core / dunning"],
    ["payments-gateway", "Payments / gateway health"], ["ledger", "Payments / ledger and reconciliation"], ["auth-service", "Identity / logins"],
    ["webhook-dispatcher", "Integrations / webhook delivery"], ["usage-metering", "Data / metering pipeline"], ["api-gateway", "Platform / edge"],
    ["notification-hub", "Growth / messaging"], ["search-indexer", "Data / search freshness"], ["customer-portal", "Growth / portal web vitals"],
  ];
  dashboards.forEach(([service, dashboard], i) =>
    p.fact(`${service}/dashboard`, i % 2 === 0 ? `The Datadog dashboard for ${service} is "${dashboard}".` : `${service}'s main dashboard in Datadog: "${dashboard}" (linked from its README).`, { s: service, c: 0.8 }),
  );
  p.ask("direct", "datadog dashboard for webhook delivery", "webhook-dispatcher/dashboard");
  p.ask("paraphrase", "is there a graph somewhere showing how up to date search results are?", "search-indexer/dashboard");
  p.ask("synonym", "ledger recon dashboard", "ledger/dashboard");

  p.ask("identifier", "payments_gateway deploy window", "payments-gateway/deploy");
  p.ask("identifier", "InvoiceRenderer S3 bucket", "invoice-renderer/stack");
  p.ask("identifier", "what's stored at secret/identity/auth-service/jwt?", "auth-service/tokens");
  p.ask("identifier", "who consumes usage.events.v2?", "usage-metering/what");
  p.ask("identifier", "what uses rl-redis-prod?", ["rate-limiter/what", "cfg:rl-fail-open", "inc:INC-2290"]);
  p.ask("identifier", "SSOBridge owner", "sso-bridge/owner");
  p.ask("identifier", "user_directory scim support", "user-directory/what");
  p.ask("identifier", "Tallyfox-Signature header", "webhook-dispatcher/signing");
  p.ask("direct", "payments gateway runbook link", "payments-gateway/runbook");
  p.ask("direct", "ledger append only", "ledger/append-only");
  p.ask("direct", "customer portal preview URL for a PR", "customer-portal/vercel");
  p.ask("direct", "kong routes yaml", ["api-gateway/what", "api-gateway/route"]);
  p.ask("direct", "okta group for admin-console", "admin-console/access");
  p.ask("direct", "payout cutoff time", ["payout-scheduler/batch", "cfg:payout-cutoff"]);
  p.ask("direct", "which repo has the dbt models?", "warehouse-etl/what");
  p.ask("word-form", "how often do we rotate the token signing keys?", "auth-service/rotate");
  p.ask("word-form", "who's reviewing dbt model changes?", "warehouse-etl/what");
  p.ask("word-form", "when are merchant payouts batched?", "payout-scheduler/batch");
  p.ask("word-form", "will replayed usage events get counted twice?", "usage-metering/dedupe");
  p.ask("word-form", "scaling the dunning worker when its queue grows", ["dunning-worker/queue", "run:scale"]);
  p.ask("word-form", "verifying webhook signatures on the customer side", "webhook-dispatcher/signing");
  p.ask("word-form", "pausing dunning for a customer", "dunning-worker/pause");
  p.ask("word-form", "reconciling the ledger against stripe settlement reports", "ledger/recon");
  p.ask("word-form", "deprecating fields in the mobile graphql api", "mobile-bff/no-breaking");
  p.ask("word-form", "provisioning users automatically from a customer's okta", "user-directory/what");
  p.ask("common-words", "how many people need to say yes before a change to the ledger database can go in?", "ledger/migrations-new", "ledger/migrations-old");
  p.ask("common-words", "what should I do when I want to make a brand new email that goes out to our customers?", "notification-hub/templates");
  p.ask("paraphrase", "why won't we send a text message to customers in some countries?", "notification-hub/sms");
  p.ask("synonym", "ES reindex, how long does it take?", "search-indexer/reindex");
  p.ask("multi-fact", "who owns billing-api and where is its runbook?", ["billing-api/owner", "billing-api/runbook"]);
  p.ask("multi-fact", "what are the deploy rules for payments-gateway and how many reviewers does a PR there need?", ["payments-gateway/deploy", "dec:approvals-new"]);
  p.ask("multi-fact", "how do enterprise customers get single sign-on and automatic user provisioning set up?", ["sso-bridge/setup", "user-directory/what"]);
  p.ask("multi-fact", "what's the size limit for CSV imports and what encoding must the file be in?", ["import-worker/limit-new", "import-worker/encoding"]);
  p.ask("multi-fact", "avalara: when does the contract renew and what happens to invoices during an avalara outage?", ["ven:avalara-contract", "tax-engine/avalara"]);

  return p;
}

/**
 * Configuration: settings named in camelCase, snake_case and as environment variables, and where things
 * live in the repositories.
 */
import { Part } from "./types";

export function configPart(): Part {
  const p = new Part("cfg");

  p.about("billing-api");
  p.fact("db-pool", "BILLING_API_DB_POOL_SIZE sets billing-api's Hikari connection pool. It's 40 in production since INC-2077; the default is 20.", { r: [110] });
  p.fact("invoice-batch", "invoiceBatchSize in billing-api's application.yaml is how many invoices the month-end run generates per batch (500).");
  p.fact("proration-flag", "ENABLE_NEW_PRORATION=true turns on per-second proration in billing-api; it has been the default since v3.38.2.");
  p.fact("plan-cache", "billing-api's planCatalogCacheMaxEntries caps the plan catalog cache at 10,000 entries (added after the OOM in INC-2344).", { d: 60 });

  p.about("payments-gateway");
  p.fact("stripe-version", "STRIPE_API_VERSION is pinned to 2024-06-20 in payments-gateway. Upgrading it is a Payments team decision because webhook payloads change.");
  p.fact("adyen-timeout", "adyenRequestTimeoutMs in payments-gateway is 8000; don't raise it above 10000 or the checkout page times out first.");
  p.fact("pdb", "payments-gateway has a PodDisruptionBudget with minAvailable: 2, so a node drain waits until replacement pods are ready.");

  p.about("fx-rates");
  p.fact("fx-stale", "FX_STALE_AFTER_MINUTES=120 in fx-rates: rates older than that trigger the stale-rates alert.");

  p.about("auth-service");
  p.fact("token-ttl", "auth-service env: ACCESS_TOKEN_TTL=15m and REFRESH_TOKEN_TTL=720h.");
  p.fact("bcrypt", "bcryptCost in auth-service's config is 12; see INC-2309 for why it isn't 14.");
  p.fact("lockout", "auth-service locks an account after maxFailedLogins (10) failed attempts; the lock expires after lockoutMinutes (30).");

  p.about("sso-bridge");
  p.fact("clock-skew", "sso-bridge: allowedClockSkewSeconds = 180.");

  p.about("user-directory");
  p.fact("max-users", "user-directory's maxUsersPerWorkspace defaults to 5000; it can be raised per workspace in admin-console under feature limits.");

  p.about("rate-limiter");
  p.fact("rl-fail-open", "rate-limiter runs with RL_FAIL_OPEN=true since INC-2290; RL_REDIS_URL points at rl-redis-prod.");

  p.about("notification-hub");
  p.fact("sms-allowlist", "notification-hub reads the SMS country allowlist from the path in SMS_COUNTRY_ALLOWLIST_PATH (config/sms-countries.yaml).");
  p.fact("email-rate", "notification-hub's emailSendRatePerSecond is 50, below Postmark's limit, so big dunning runs are spread over several minutes.");

  p.about("customer-portal");
  p.fact("api-url", "NEXT_PUBLIC_API_URL must be set in Vercel for both Production and Preview; customer-portal uses it as the base URL for API calls.");

  p.about("onboarding-service");
  p.fact("trial-days", "onboarding-service reads trialLengthDays (14) from its config; sales can give a workspace a longer enterprise trial with trialOverrideDays.");

  p.about("usage-metering");
  p.fact("dedupe-window", "usage-metering: dedupeWindowHours = 48 (it was 24 before INC-2185).");
  p.fact("raw-ttl", "The raw_events table in usage-metering's ClickHouse has a TTL of 90 days (ttl_days: 90 in clickhouse/tables.yaml).", { d: 42 });

  p.about("reporting-api");
  p.fact("report-cache", "REPORT_CACHE_TTL_SECONDS=600 in reporting-api.");

  p.about("search-indexer");
  p.fact("refresh-interval", "The invoices index in OpenSearch has index.refresh_interval 5s; the bulk reindex sets it to -1 while loading and restores it at the end.");

  p.about("webhook-dispatcher");
  p.fact("webhook-concurrency", "webhook-dispatcher: maxConcurrentPerEndpoint = 4 (since INC-2110) and webhookTimeoutSeconds = 10.");

  p.about("import-worker");
  p.fact("import-max", "import-worker/settings.toml: max_file_size_mb = 100, max_rows = 500000.", { d: 60 });

  p.about("export-worker");
  p.fact("export-env", "export-worker: EXPORT_ROWS_PER_FILE=1000000 and EXPORT_LINK_TTL_DAYS=7.");

  p.about("accounting-sync");
  p.fact("xero-rate", "accounting-sync limits itself with xeroCallsPerMinute = 55; Xero's own limit is 60 per tenant.");

  p.about("mobile-bff");
  p.fact("introspection", "APOLLO_INTROSPECTION is disabled in production for mobile-bff; use the staging endpoint to explore the schema.");

  p.about("scheduler");
  p.fact("utc-only", "SCHEDULER_ALLOW_LOCAL_TZ=false makes scheduler reject job definitions that aren't in UTC.");

  p.about("ledger");
  p.fact("recon-threshold", "ledger reconciliation: journalBatchSize=1000, and RECON_ALERT_THRESHOLD_EUR=50 is the mismatch amount that pages Payments.");

  p.about("payout-scheduler");
  p.fact("payout-cutoff", "payout-scheduler: PAYOUT_CUTOFF_UTC=13:30.");

  p.about("invoice-renderer");
  p.fact("chromium-pool", "invoice-renderer: CHROMIUM_POOL_SIZE=4 browsers per pod and RENDER_TIMEOUT_MS=30000.");

  p.about("tax-engine");
  p.fact("tax-cache", "tax-engine's TAX_CACHE_TTL_HOURS is 24; lowering it raises our Avalara bill because Avalara charges per call.");
  p.fact("tax-fallback", "TAX_FALLBACK_MODE=estimate makes tax-engine use the last known rate per jurisdiction when Avalara is unreachable and the cache is cold; affected invoices get tax_estimated=true.");

  p.about("platform");
  p.fact("k8s-resources", "Most services run with requests of 250m CPU and 512Mi memory; invoice-renderer needs 1 CPU and 2Gi because of Chromium.");
  p.fact("log-level", "Log level is set per service with LOG_LEVEL; debug logging in production has to be switched back within 24 hours.");
  p.fact("otel-sampling", "OTEL_TRACES_SAMPLER_ARG=0.1 in production, which is the 10% trace sampling from ADR-050.");

  p.about("repositories");
  p.fact("helm-values", "Helm values for each service live in tallyfox/deploy under apps/<service>/values-prod.yaml, and values-staging.yaml for staging; replicas and HPA limits are set there.", { r: [45] });
  p.fact("terraform-layout", "Terraform modules live in tallyfox/infra/modules; the RDS module is modules/rds-postgres and every database is declared in infra/envs/prod/databases.tf.");
  p.fact("monitors-repo", "Datadog monitors are code in tallyfox/monitors (Terraform). Monitors created in the Datadog UI are deleted by a nightly job.");
  p.fact("shared-workflows", "The shared GitHub Actions workflows are in tallyfox/.github/workflows; reuse build-and-push.yml rather than writing your own.");
  p.fact("proto-schemas", "Protobuf schemas for Kafka events live in tallyfox/schemas under proto/events; breaking changes fail the buf breaking check in CI.");
  p.fact("local-dev", "Local development: every repo has docker-compose.dev.yml, and `make dev` starts the dependencies (Postgres, Redis, LocalStack).");
  p.fact("openapi", "The public API's OpenAPI spec is tallyfox/public-api/openapi/v2.yaml; docs.tallyfox.com is generated from it.");
  p.fact("ops-toolbox", "tallyfox/ops-toolbox holds operational scripts (payouts retry, refund-bulk, reissue-invoice, kafka-replay); run them in the toolbox pod in production, never locally.", { r: [20] });
  p.fact("vault-paths", "Vault path convention: secret/<team>/<service>/<name>, e.g. secret/payments/payments-gateway/stripe_api_key.");
  p.fact("usage-flag", "The Unleash flag billing.usage-based-pricing-2026-07 gates the new usage-based pricing screens in customer-portal.", { d: 35 });
  p.fact("runbooks-dir", "All runbooks live in the tallyfox/ops repo under runbooks/, one markdown file per service, linked from each service's README.");

  p.ask("camel-case", "what does invoiceBatchSize control?", "invoice-batch");
  p.ask("camel-case", "billing api db pool size in production", "db-pool");
  p.ask("camel-case", "adyen request timeout setting", "adyen-timeout");
  p.ask("camel-case", "is enable_new_proration still needed?", "proration-flag");
  p.ask("camel-case", "plan catalog cache max entries", "plan-cache");
  p.ask("camel-case", "stripeApiVersion pinned to what?", "stripe-version");
  p.ask("camel-case", "fx stale after minutes", "fx-stale");
  p.ask("camel-case", "refresh token ttl", ["token-ttl", "svc:auth-service/tokens"]);
  p.ask("camel-case", "max_failed_logins and lockout minutes", "lockout");
  p.ask("camel-case", "maxUsersPerWorkspace limit, can it be raised?", "max-users");
  p.ask("camel-case", "rl fail open setting", "rl-fail-open");
  p.ask("camel-case", "email send rate per second in notification hub", "email-rate");
  p.ask("camel-case", "next_public_api_url", "api-url");
  p.ask("camel-case", "trial override days for an enterprise trial", "trial-days");
  p.ask("camel-case", "dedupe_window_hours for metering", ["dedupe-window", "svc:usage-metering/dedupe"]);
  p.ask("camel-case", "webhook timeout seconds and per-endpoint concurrency", "webhook-concurrency");
  p.ask("camel-case", "maxFileSizeMb for imports", ["import-max", "svc:import-worker/limit-new"]);
  p.ask("camel-case", "export link ttl days", ["export-env", "svc:export-worker/what"]);
  p.ask("camel-case", "XERO_CALLS_PER_MINUTE", "xero-rate");
  p.ask("camel-case", "apollo introspection in prod", "introspection");
  p.ask("camel-case", "schedulerAllowLocalTz", "utc-only");
  p.ask("camel-case", "recon alert threshold eur", "recon-threshold");
  p.ask("camel-case", "chromium pool size per pod", "chromium-pool");
  p.ask("camel-case", "tax fallback mode estimate", "tax-fallback");
  p.ask("camel-case", "what does TAX_CACHE_TTL_HOURS cost us if lowered?", "tax-cache");
  p.ask("camel-case", "allowed clock skew seconds for saml", ["clock-skew", "svc:sso-bridge/skew"]);
  p.ask("camel-case", "bcrypt cost value in auth", ["bcrypt", "inc:INC-2309"]);
  p.ask("camel-case", "raw_events ttl in clickhouse", ["raw-ttl", "inc:INC-2362"]);
  p.ask("synonym", "cpu and memory requests for k8s pods", "k8s-resources");
  p.ask("paraphrase", "forgot to turn off debug logging in production, how long is that allowed?", "log-level");
  p.ask("multi-fact", "what's the trace sampling rate in prod?", ["otel-sampling", "dec:adr-050"]);
  p.ask("identifier", "where is values-prod.yaml for a service?", "helm-values");
  p.ask("identifier", "infra/envs/prod/databases.tf", "terraform-layout");
  p.ask("paraphrase", "I created a datadog monitor in the UI and it disappeared", "monitors-repo");
  p.ask("identifier", "build-and-push.yml shared workflow", "shared-workflows");
  p.ask("paraphrase", "where are the protobuf definitions for kafka events?", "proto-schemas");
  p.ask("paraphrase", "how do I run a service on my machine?", "local-dev");
  p.ask("identifier", "openapi v2.yaml location", "openapi");
  p.ask("paraphrase", "where are the ops scripts like reissue invoice?", "ops-toolbox");
  p.ask("paraphrase", "where do I put a new secret in vault, what's the path format?", "vault-paths");
  p.ask("identifier", "billing.usage-based-pricing flag", "usage-flag");
  p.ask("synonym", "is there one place with all the runbooks?", "runbooks-dir");

  p.ask("camel-case", "journalBatchSize", "recon-threshold");
  p.ask("camel-case", "render timeout ms for invoice pdfs", "chromium-pool");
  p.ask("camel-case", "access_token_ttl", ["token-ttl", "svc:auth-service/tokens"]);
  p.ask("camel-case", "what is trialLengthDays set to?", ["trial-days", "svc:onboarding-service/trial"]);
  p.ask("camel-case", "webhookTimeoutSeconds", "webhook-concurrency");
  p.ask("camel-case", "PAYOUT_CUTOFF_UTC", ["payout-cutoff", "svc:payout-scheduler/batch"]);
  p.ask("camel-case", "EXPORT_ROWS_PER_FILE", ["export-env", "svc:export-worker/what"]);
  p.ask("camel-case", "report cache ttl", ["report-cache", "svc:reporting-api/cache"]);
  p.ask("camel-case", "logLevel debug in production, how long may it stay on?", "log-level");
  p.ask("synonym", "where do the k8s helm values for a service live?", "helm-values");
  p.ask("synonym", "infra as code for datadog alerts", "monitors-repo");

  return p;
}

/**
 * The noise a real organization's memory fills up with: CI and deploy notifications, alerts, dependency
 * bumps, error-tracker issues, on-call handovers, meeting notes, tickets, cost reports. It mentions the
 * same services, tools and words as the questions without answering them. Mostly recent, lower confidence.
 * Generated from templates with a seeded generator, so it is the same on every run. No query is labelled
 * with a noise memory.
 */
import type { TMemoryKind } from "@engram/contract";
import { engineers, type Service, services } from "./org";
import { Part, rng } from "./types";

interface Noise {
  text: string;
  kind: TMemoryKind;
  subject?: string;
}

const steps = ["lint", "unit-tests", "integration-tests", "docker build", "e2e", "helm lint", "security scan", "contract tests"];
const dependencies: Record<string, Array<[string, string, string]>> = {
  Go: [["golang.org/x/net", "0.23.0", "0.25.0"], ["google.golang.org/grpc", "1.62.1", "1.64.0"], ["github.com/redis/go-redis/v9", "9.5.1", "9.6.0"], ["go.opentelemetry.io/otel", "1.24.0", "1.27.0"]],
  Kotlin: [["spring-boot", "3.2.5", "3.3.1"], ["jackson-databind", "2.17.0", "2.17.1"], ["flyway-core", "10.11.0", "10.15.0"], ["kotlinx-coroutines", "1.8.0", "1.8.1"]],
  Java: [["opensearch-java", "2.10.0", "2.11.1"], ["debezium-core", "2.5.4", "2.6.2"], ["netty-codec-http", "4.1.108", "4.1.111"]],
  TypeScript: [["@nestjs/core", "10.3.7", "10.3.9"], ["zod", "3.22.4", "3.23.8"], ["pino", "8.20.0", "9.2.0"], ["typescript", "5.4.5", "5.5.3"]],
  "Node.js": [["puppeteer", "22.6.0", "22.12.1"], ["aws-sdk", "3.556.0", "3.609.0"], ["undici", "6.13.0", "6.19.2"]],
  "Next.js": [["next", "14.1.4", "14.2.5"], ["react-hook-form", "7.51.2", "7.52.1"], ["@tanstack/react-query", "5.29.0", "5.51.1"]],
  Python: [["fastapi", "0.110.1", "0.111.0"], ["pydantic", "2.7.0", "2.8.2"], ["openpyxl", "3.1.2", "3.1.5"], ["boto3", "1.34.84", "1.34.144"]],
  dbt: [["dbt-snowflake", "1.7.3", "1.8.3"], ["dbt-utils", "1.1.1", "1.2.0"]],
  "Ruby on Rails": [["rails", "7.1.3", "7.1.3.4"], ["sidekiq", "7.2.2", "7.3.0"]],
  Kong: [["kong", "3.3.1", "3.3.2"]],
};
const exceptions: Record<string, string[]> = {
  Go: ["context deadline exceeded", "rpc error: code = Unavailable", "redis: connection pool timeout", "sql: no rows in result set"],
  Kotlin: ["JdbcSQLTransientConnectionException", "DataIntegrityViolationException on invoice_number", "SocketTimeoutException: Read timed out", "IllegalStateException: plan not active"],
  Java: ["OpenSearchException: circuit_breaking_exception", "ConnectException: Connection refused", "SnapshotException in Debezium"],
  TypeScript: ["TypeError: Cannot read properties of undefined (reading 'id')", "ZodError: invalid_type at path workspace_id", "PrismaClientKnownRequestError P2002"],
  "Node.js": ["TimeoutError: Navigation timeout of 30000 ms exceeded", "ProtocolError: Target closed", "Error: ENOSPC: no space left on device"],
  "Next.js": ["Hydration failed because the initial UI does not match", "ChunkLoadError: Loading chunk 4312 failed", "TypeError: Failed to fetch"],
  Python: ["KeyError: 'currency'", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9", "botocore.exceptions.ReadTimeoutError", "ValidationError: 1 validation error for ExportRequest"],
  dbt: ["Database Error in model fct_invoices: Object does not exist", "Compilation Error in model dim_customers"],
  "Ruby on Rails": ["ActiveRecord::RecordNotFound", "Net::ReadTimeout in ImpersonationsController"],
  Kong: ["upstream timed out (110: Connection timed out)", "no Route matched with those values"],
};
const bugs = [
  "returns 500 when the plan list is empty", "logs the full request body at debug level", "ignores the workspace timezone in a date filter",
  "times out on very large workspaces", "sends the wrong locale in emails", "double-counts a retry in its metrics", "leaks a goroutine per request",
  "doesn't handle a 429 from its upstream", "writes an empty file when nothing matches", "shows the wrong currency symbol for CHF",
  "has a race when two requests update the same record", "spams the logs with a deprecation warning",
];
const topics = [
  "moving to a shared Postgres cluster", "splitting the service in two", "adding a read replica", "replacing polling with Kafka events",
  "rewriting the retry logic", "switching the HTTP client", "adding request hedging", "dropping support for the v1 API", "a new cache layer",
  "partitioning the largest table", "rate limiting internal callers", "moving the cron jobs to the scheduler", "cost of the staging environment",
];
const customers = [
  "Acme Corp", "Globex", "Initech", "Hooli", "Umbrella Health", "Stark Logistics", "Wonka Foods", "Tyrell Systems", "Oscorp", "Nakatomi Trading",
  "Duff Beverages", "Bluth Company", "Prestige Worldwide", "Dunder Mifflin", "Los Pollos Hermanos", "Vandelay Industries", "Aperture Labs", "Gekko & Co",
];
const symptoms = [
  "an invoice PDF that takes minutes to download", "a webhook that arrives twice", "the wrong VAT rate on an invoice", "a CSV import stuck at 99%",
  "a login loop after enabling SSO", "a missing payment on the dashboard", "an export email that never came", "the revenue report not matching their own numbers",
  "the portal being slow in the afternoon", "a credit note that doesn't show on the invoice", "an API key that suddenly returns 401", "duplicate reminder emails",
];
const resolutions = [
  "solved by support with a cache refresh", "explained, working as intended", "escalated to engineering", "fixed by re-running the job",
  "customer error, wrong workspace", "duplicate of an existing ticket", "closed after no reply for 7 days", "workaround given, bug filed",
];
const alertTypes = ["latency", "error-rate", "disk", "queue depth", "pod restart", "CPU throttling", "certificate expiry", "health check"];
const reasons = ["a synthetic check timing out", "a deploy restarting pods", "a Datadog agent upgrade", "a noisy neighbour on the node", "a monitor threshold set too low"];
const retroPoints = [
  "reviews took too long during the cycle", "too many pages from flaky health checks", "the staging environment was often broken",
  "good collaboration with Support on escalations", "on-call handovers were missing context", "we underestimated the migration work",
];
const docChanges = [
  "local setup steps for Apple Silicon", "a diagram of the request flow", "links to the Datadog dashboards", "the list of environment variables",
  "how to run the integration tests", "a section on known issues",
];
const questions = [
  "get staging credentials", "tail the logs", "run the service locally", "find the dashboard", "trigger a deploy", "get a database dump",
  "test a webhook locally", "see the feature flags", "find who owns an alert", "reproduce a customer's issue",
];
const environments = ["staging", "prod-eu", "prod-us"];
const linearKeys: Record<string, string> = {
  "Billing Core": "BILL", Payments: "PAY", Identity: "IDN", Platform: "PLAT", Growth: "GRO", Data: "DATA", Integrations: "INT",
  Mobile: "MOB", "Support Engineering": "SUP", Security: "SEC",
};

/** Services that exist next to the catalogued ones, with similar names: they share words with many questions. */
const siblings: Array<[string, string]> = [
  ["billing-reports", "billing-reports is a small Python job owned by Data that emails the finance team a daily billing summary; Ravi Kulkarni looks after it."],
  ["billing-web", "billing-web was the old server-rendered billing UI; it's read-only now and scheduled for deletion once customer-portal covers invoices."],
  ["payments-webhooks", "payments-webhooks was merged into payments-gateway last year; its repo is archived and its ArgoCD app deleted."],
  ["invoice-mailer", "invoice-mailer is a thin Go worker in Billing Core that hands finished invoices to notification-hub; it has no runbook of its own."],
  ["auth-proxy", "auth-proxy is an oauth2-proxy deployment in front of internal dashboards (Grafana, ArgoCD); Platform maintains it, not Identity."],
  ["ledger-exporter", "ledger-exporter exports ledger journal entries to the accounting firm every month end; Payments owns it and it runs as a scheduler job."],
  ["notification-preferences", "notification-preferences stores which emails each user opted out of; it was folded into user-directory's data model."],
  ["portal-e2e", "portal-e2e holds the Playwright end-to-end tests for customer-portal; they run nightly against staging."],
  ["tax-rates-sync", "tax-rates-sync was the nightly TaxJar rate download; it was turned off when tax-engine moved to Avalara."],
  ["search-api", "search-api is the thin HTTP layer over OpenSearch that customer-portal calls; Data owns it together with search-indexer."],
  ["metering-gateway", "metering-gateway accepts usage events over HTTP from customers and writes them to Kafka for usage-metering."],
  ["status-page-bot", "status-page-bot posts Statuspage updates into #incidents; Rosa wrote it during a hack week and nobody really owns it."],
  ["ops-runner", "The ops-runner pod in each cluster has kubectl, psql and the ops toolbox preinstalled; it's the place to run one-off scripts."],
  ["deploy-bot", "deploy-bot announces every production ArgoCD sync in #deploys with the service, version and the person who approved it."],
];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function version(random: () => number): string {
  return `v${1 + Math.floor(random() * 5)}.${Math.floor(random() * 50)}.${Math.floor(random() * 10)}`;
}

function sha(random: () => number): string {
  return Math.floor(random() * 0xfffffff).toString(16).padStart(7, "0");
}

function clock(random: () => number): string {
  return `${String(Math.floor(random() * 24)).padStart(2, "0")}:${String(Math.floor(random() * 60)).padStart(2, "0")}`;
}

const generators: Array<(random: () => number, s: Service) => Noise> = [
  (r, s) => ({ kind: "event", text: `GitHub Actions: ${s.name} build #${40000 + Math.floor(r() * 9999)} on main failed at "${pick(r, steps)}"; a rerun passed.` }),
  (r, s) => ({ kind: "event", text: `CI for ${s.name} PR #${1000 + Math.floor(r() * 3000)} went green in ${4 + Math.floor(r() * 20)} minutes (lint, unit, integration).` }),
  (r, s) => ({ kind: "observation", text: `Flaky test in ${s.name}: ${pick(r, ["RetryPolicyTest", "InvoiceFlowIT", "test_export_large", "WebhookSignatureSpec", "TokenRefreshTest", "checkout.spec.ts"])} failed ${2 + Math.floor(r() * 6)} times on CI this week; ${pick(r, engineers)} quarantined it.` }),
  (r, s) => ({ kind: "observation", text: `The ${s.name} pipeline was slow today: the Docker layer cache missed and the build took ${15 + Math.floor(r() * 25)} minutes.` }),
  (r, s) => ({ kind: "event", text: `ArgoCD synced ${s.name}-prod to ${sha(r)} (${version(r)}) at ${clock(r)} UTC, approved by ${pick(r, engineers)}.` }),
  (r, s) => ({ kind: "event", text: `${s.name} ${version(r)} deployed to ${pick(r, environments)}; the canary was healthy and got promoted after 10 minutes.` }),
  (r, s) => ({ kind: "event", text: `${s.name} ${version(r)} was rolled back in staging after its smoke tests failed; production was not affected.` }),
  (r, s) => ({ kind: "event", text: `Hotfix ${version(r)} of ${s.name} shipped: it ${pick(r, bugs)} no more.` }),
  (r, s) => ({ kind: "event", text: `Datadog monitor "${s.name} p99 latency" triggered at ${clock(r)} UTC and resolved itself after ${2 + Math.floor(r() * 20)} minutes.` }),
  (r, s) => ({ kind: "event", text: `Monitor "${s.name} error rate > 2%" fired during a deploy; ${pick(r, engineers)} acknowledged it, no action needed.` }),
  (r, s) => ({ kind: "event", text: `PagerDuty paged ${pick(r, engineers)} for ${s.name} at ${clock(r)} UTC; it was a false alarm caused by ${pick(r, reasons)}.` }),
  (r, s) => {
    const [dep, from, to] = pick(r, dependencies[s.language] ?? dependencies.Go!);
    return { kind: "event", text: `Renovate PR #${1000 + Math.floor(r() * 3000)} on ${s.name}: bump ${dep} from ${from} to ${to}${r() < 0.5 ? " (automerged)" : ", waiting for review"}.` };
  },
  (r, s) => {
    const [dep] = pick(r, dependencies[s.language] ?? dependencies.Go!);
    return { kind: "observation", text: `Snyk flagged CVE-2024-${10000 + Math.floor(r() * 40000)} in ${dep} used by ${s.name}; ${pick(r, engineers)} is upgrading it.` };
  },
  (r, s) => ({ kind: "event", text: `Sentry: new issue in ${s.name}: ${pick(r, exceptions[s.language] ?? exceptions.Go!)} (${3 + Math.floor(r() * 400)} events, ${1 + Math.floor(r() * 60)} users).` }),
  (r, s) => ({ kind: "event", text: `Sentry issue "${pick(r, exceptions[s.language] ?? exceptions.Go!)}" in ${s.name} marked resolved in ${version(r)}.` }),
  (r, s) => ({ kind: "observation", text: `On-call handover (${s.team}): ${1 + Math.floor(r() * 6)} pages this week, mostly ${s.name} ${pick(r, alertTypes)} alerts; nothing open.` }),
  (r, s) => ({ kind: "observation", text: `Handover note: ${s.name} had a noisy ${pick(r, alertTypes)} alert on ${pick(r, ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])}; ${pick(r, engineers)} tuned the threshold.` }),
  (r, s) => ({ kind: "observation", text: `${s.team} sync: talked about ${pick(r, topics)} for ${s.name}; no decision yet, ${pick(r, engineers)} will write a proposal.` }),
  (r, s) => ({ kind: "observation", text: `Architecture review: ${pick(r, engineers)} presented ${pick(r, topics)} for ${s.name}; more questions than answers, continues next session.` }),
  (r, s) => ({ kind: "observation", text: `Retro (${s.team}): ${pick(r, retroPoints)}.`, subject: s.team }),
  (r, s) => ({ kind: "event", text: `${linearKeys[s.team]}-${100 + Math.floor(r() * 1900)} opened: ${s.name} ${pick(r, bugs)}.` }),
  (r, s) => ({ kind: "event", text: `${linearKeys[s.team]}-${100 + Math.floor(r() * 1900)} closed: ${s.name} ${pick(r, bugs)} (fixed in ${version(r)}).` }),
  (r, s) => ({ kind: "event", text: `Zendesk #${50000 + Math.floor(r() * 9999)}: ${pick(r, customers)} reported ${pick(r, symptoms)}; ${pick(r, resolutions)}.`, subject: "support" }),
  (r, s) => ({ kind: "observation", text: `Someone asked in #eng-help how to ${pick(r, questions)} for ${s.name}; ${pick(r, engineers)} answered in the thread.` }),
  (r, s) => ({ kind: "observation", text: `AWS cost report: ${s.name} cost $${(1 + r() * 30).toFixed(1)}k last month (${Math.floor(r() * 40)}% ${r() < 0.5 ? "up" : "down"}).` }),
  (r, s) => ({ kind: "observation", text: `Load test of ${s.name} in staging reached ${200 + Math.floor(r() * 3000)} requests per second before p99 went over 500 ms.` }),
  (r, s) => ({ kind: "event", text: `${s.name} README updated with ${pick(r, docChanges)}.` }),
  (r, s) => ({ kind: "event", text: `${pick(r, engineers)} got temporary access to ${s.name} logs in Datadog to debug ${linearKeys[s.team]}-${100 + Math.floor(r() * 1900)}.` }),
  (r, s) => ({ kind: "event", text: `Config change in staging: LOG_LEVEL of ${s.name} set to debug by ${pick(r, engineers)} for an hour, then reverted.` }),
  (r, s) => ({ kind: "observation", text: `${s.name} pods restarted ${2 + Math.floor(r() * 8)} times overnight in ${pick(r, environments)} after liveness probe timeouts; no customer impact.` }),
  (r, s) => ({ kind: "event", text: `Minor blip: ${s.name} returned elevated 5xx for ${1 + Math.floor(r() * 4)} minutes during a node rotation in ${pick(r, environments)}; no incident declared.` }),
  (r, s) => ({ kind: "event", text: `Release notes ${s.name} ${version(r)}: ${pick(r, ["adds", "removes", "changes"])} ${pick(r, ["a metric", "an endpoint", "a config option", "a log field", "the retry behaviour", "a database index"])} (${linearKeys[s.team]}-${100 + Math.floor(r() * 1900)}).` }),
  (r, s) => ({ kind: "observation", text: `Reminder in #${s.team.toLowerCase().replace(/ /g, "-")}: please update the ${s.name} dashboard links in the runbook after the Datadog folder reorganisation.` }),
  (r, s) => ({ kind: "event", text: `Game day: ${pick(r, engineers)} killed a ${s.name} pod in staging to test failover; recovery took ${20 + Math.floor(r() * 100)} seconds.` }),
];

export function noisePart(count = 620): Part {
  const p = new Part("noise");
  const random = rng(20261101);
  const seen = new Set<string>();
  for (let i = 0; seen.size < count; i++) {
    const service = pick(random, services);
    const generate = pick(random, generators);
    const noise = generate(random, service);
    if (seen.has(noise.text)) continue;
    seen.add(noise.text);
    // Mostly recent (the last 3 months), with a long tail up to a year and a half.
    const daysAgo = random() < 0.75 ? Math.floor(random() * 90) : 90 + Math.floor(random() * 450);
    const confidence = Math.round((0.4 + random() * 0.35) * 100) / 100;
    const reinforced = random() < 0.04 ? [Math.max(0, daysAgo - 1 - Math.floor(random() * 10))] : undefined;
    p.add(noise.kind, `${i}`, noise.text, { s: noise.subject ?? service.name, d: daysAgo, c: confidence, ...(reinforced ? { r: reinforced } : {}) });
  }
  siblings.forEach(([name, text], i) => p.fact(`sibling-${i}`, text, { s: name, c: 0.75 }));
  // A little team chatter that mentions people and processes without answering questions about them.
  const chatter = [
    "Thanks to everyone who joined the on-call training; the recording is in the Engineering drive.",
    "The Thursday reliability review is cancelled this week because of the offsite.",
    "Reminder: expense reports for the offsite are due by the end of the month.",
    "Kwame, Jonas and Sofia are at KubeCon next week; expect slower reviews.",
    "The engineering all-hands moved to the big room on the 3rd floor.",
    "New joiners this month: two engineers in Payments and one in Data; say hi in #general.",
    "IT will replace the office Wi-Fi access points on Saturday; VPN-less access to internal tools might flap.",
    "Hack week ideas are collected in the Notion page 'Hack week 2026'; voting closes Friday.",
    "The quarterly security training is due for everyone by the 15th.",
    "Pizza in the kitchen for the people who stayed late for the Postgres upgrade.",
    "Reminder: holidays for December go into the team calendar by November 15.",
    "Platform is hiring a second SRE; referrals go to the recruiting channel.",
    "Book club this month reads 'Designing Data-Intensive Applications', chapter 7 on transactions.",
    "Someone left a laptop charger in meeting room Fjord.",
    "The design team shared new illustrations for the empty states in the portal.",
    "Customer advisory board meeting is on the 20th; Grace is collecting topics.",
  ];
  chatter.forEach((text, i) => p.observation(`chatter-${i}`, text, { s: "team chatter", c: 0.5, d: 5 + ((i * 37) % 200) }));
  return p;
}

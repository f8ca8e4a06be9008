/**
 * A labelled evaluation set that resembles an engineering organization's memory: service ownership,
 * deploy procedures, runbooks, incidents with ticket ids, decisions that changed over time, settings
 * named in camelCase, release facts, people and team preferences, and the noise of CI notifications.
 * Queries are phrased the way people ask (other word forms, paraphrases, identifiers written another way),
 * each labelled with the memories that answer it. Deterministic: the same set on every run.
 */
import type { TMemoryKind } from "@engram/contract";

export interface EvalMemory {
  key: string;
  text: string;
  subject?: string;
  memoryKind: TMemoryKind;
  confidence: number;
  /** How long ago it was encoded. */
  daysAgo: number;
  /** How long ago it was reinforced, once per entry. */
  reinforcedDaysAgo?: number[];
}

export type QueryKind = "paraphrase" | "word-form" | "identifier" | "changed-over-time" | "camel-case" | "direct";

export interface EvalQuery {
  query: string;
  kind: QueryKind;
  /** Keys of the memories that answer it. */
  relevant: string[];
}

const services = [
  "payments-api", "ledger", "checkout-web", "auth-gateway", "search-indexer", "notifications", "billing-worker", "inventory-sync",
  "fraud-scorer", "reporting-etl", "media-uploader", "pricing-engine", "session-store", "email-relay", "feature-flags", "audit-log",
  "shipping-quotes", "tax-calculator", "loyalty-points", "catalog-api", "recommendations", "webhooks-dispatcher", "refunds", "identity-sync",
];
const teams = ["payments", "platform", "growth", "data", "security", "identity"];
const people = ["Alice Nguyen", "Bruno Costa", "Chen Wei", "Dana Okafor", "Elif Yilmaz", "Farid Haddad", "Grace Kim", "Hugo Martin", "Ines Duarte", "Jonas Berg", "Kavya Rao", "Liam Walsh"];
const brokers = ["Kafka", "RabbitMQ", "SQS", "NATS", "Redis Streams", "Pub/Sub"];
const ciSystems = ["GitHub Actions", "Buildkite", "CircleCI", "Jenkins"];
const causes = ["an expired TLS certificate", "a connection pool exhausted by a slow query", "a bad feature flag rollout", "a DNS change in the load balancer", "a schema migration that locked a hot table", "an out-of-memory crash loop after a dependency upgrade"];
const protocols = ["SOAP", "XML-RPC", "v1 REST", "gRPC alpha"];
const quarters = ["Q1", "Q2", "Q3", "Q4"];

function camel(service: string): string {
  return service.split("-").map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join("");
}

function perService(service: string, i: number): { memories: EvalMemory[]; queries: EvalQuery[] } {
  const team = teams[i % teams.length]!;
  const lead = people[i % people.length]!;
  const responder = people[(i * 5 + 3) % people.length]!;
  const ci = ciSystems[i % ciSystems.length]!;
  const oldBroker = brokers[i % brokers.length]!;
  const newBroker = brokers[(i + 2) % brokers.length]!;
  const incident = 100 + i * 37;
  const protocol = protocols[i % protocols.length]!;
  const version = `v${2 + (i % 4)}.${(i * 7) % 20}.${i % 10}`;
  const key = (name: string) => `${service}:${name}`;

  const memories: EvalMemory[] = [
    { key: key("owner"), subject: service, memoryKind: "fact", confidence: 0.95, daysAgo: 200, reinforcedDaysAgo: [30, 6], text: `${service} is owned by the ${team} team; ${lead} is its tech lead.` },
    { key: key("deploy"), subject: service, memoryKind: "procedure", confidence: 0.9, daysAgo: 120, text: `Deploying ${service}: merge to main, wait for the ${ci} pipeline to pass, then run make release SERVICE=${service} from the ops runner.` },
    { key: key("runbook"), subject: service, memoryKind: "fact", confidence: 0.9, daysAgo: 90, text: `The on-call runbook for ${service} lives at docs/runbooks/${service}.md; pages go to the ${team}-oncall PagerDuty rotation.` },
    { key: key("incident"), subject: `INC-${incident}`, memoryKind: "event", confidence: 0.85, daysAgo: 45, text: `INC-${incident}: ${service} returned 5xx errors for ${10 + (i % 50)} minutes after ${causes[i % causes.length]}; ${responder} rolled back and added an alert.` },
    { key: key("broker-old"), subject: service, memoryKind: "decision", confidence: 0.8, daysAgo: 420, text: `${service} publishes its domain events to ${oldBroker}.` },
    { key: key("broker-new"), subject: service, memoryKind: "decision", confidence: 0.9, daysAgo: 25, text: `Since the ${quarters[i % 4]} migration, ${service} publishes its domain events to ${newBroker} instead of ${oldBroker}.` },
    { key: key("retries"), subject: service, memoryKind: "fact", confidence: 0.8, daysAgo: 60, text: `${service} reads its retry limit from the ${camel(service)}MaxRetries setting (default ${3 + (i % 5)}).` },
    { key: key("legacy"), subject: service, memoryKind: "fact", confidence: 0.75, daysAgo: 150, text: `${service} ${version} is the last release that still supports the legacy ${protocol} API.` },
    // Event noise: what deploy tooling, CI, alerts and code review leave behind. It mentions the service,
    // and often the query's words, without answering the question.
    { key: key("ci-1"), subject: service, memoryKind: "event", confidence: 0.5, daysAgo: 3, text: `CI run ${5000 + i * 3} for ${service} failed on a flaky integration test and passed on retry.` },
    { key: key("ci-2"), subject: service, memoryKind: "event", confidence: 0.5, daysAgo: 2, text: `${ci} pipeline for ${service} took ${12 + (i % 9)} minutes; the cache hit rate dropped to ${40 + i}%.` },
    { key: key("deployed-1"), subject: service, memoryKind: "event", confidence: 0.6, daysAgo: 9, text: `${service} ${version} was deployed to prod-eu by ArgoCD; the release notes mention a new version of the ${protocol} client.` },
    { key: key("deployed-2"), subject: service, memoryKind: "event", confidence: 0.6, daysAgo: 4, text: `Release ${version.replace(/\d+$/, (d) => String(Number(d) + 1))} of ${service} rolled out to staging, then to production after the canary held for an hour.` },
    { key: key("pr"), subject: service, memoryKind: "event", confidence: 0.55, daysAgo: 6, text: `PR #${800 + i * 11} merged into ${service}: raise the publish timeout for events and log the broker latency.` },
    { key: key("alert"), subject: service, memoryKind: "observation", confidence: 0.6, daysAgo: 12, text: `Datadog alert: ${service} p95 latency above 800 ms for 5 minutes; the on-call engineer acknowledged it and it recovered on its own.` },
    { key: key("review"), subject: service, memoryKind: "observation", confidence: 0.6, daysAgo: 20, text: `Code review of ${service}: retries around the HTTP client ignore the configured limit and should use exponential backoff.` },
    { key: key("oncall-note"), subject: service, memoryKind: "observation", confidence: 0.55, daysAgo: 8, text: `On-call handover for ${service}: no pages this week; ${people[(i + 4) % people.length]} owns the follow-up on the flaky login test.` },
    { key: key("owner-team-note"), subject: team, memoryKind: "fact", confidence: 0.6, daysAgo: 40, text: `The ${team} team's quarterly goals include cutting ${service} cloud costs by 15% and retiring the legacy ${protocol} endpoints.` },
  ];

  const queries: EvalQuery[] = [
    { kind: "paraphrase", query: `who is responsible for ${service}?`, relevant: [key("owner")] },
    { kind: "word-form", query: `how do I deploy a new release of ${service}`, relevant: [key("deploy")] },
    { kind: "paraphrase", query: `where is the runbook for ${service} when I am on call`, relevant: [key("runbook")] },
    { kind: "identifier", query: `what happened in INC ${incident}`, relevant: [key("incident")] },
    { kind: "changed-over-time", query: `which message broker does ${service} publish its events to now`, relevant: [key("broker-new")] },
    { kind: "camel-case", query: `max retries setting for ${service}`, relevant: [key("retries")] },
    { kind: "word-form", query: `last ${service} version supporting the legacy ${protocol} API`, relevant: [key("legacy")] },
  ];
  return { memories, queries };
}

const general: Array<{ memory: Omit<EvalMemory, "key">; query: string; kind: QueryKind }> = [
  ...["Terraform", "Kubernetes", "Datadog", "Postgres", "Kafka", "Vault"].map((tool, i) => ({
    memory: { subject: people[(i * 3) % people.length]!, memoryKind: "fact" as const, confidence: 0.8, daysAgo: 80 + i * 10, text: `${people[(i * 3) % people.length]} is the person to ask about ${tool}; they wrote most of our ${tool} modules.` },
    query: `who knows the most about ${tool}`,
    kind: "paraphrase" as const,
  })),
  ...teams.map((team, i) => ({
    memory: { subject: team, memoryKind: "preference" as const, confidence: 0.85, daysAgo: 100 + i, text: `The ${team} team prefers squash merges, pull requests under 400 lines and two approving reviews.` },
    query: `what merge style does the ${team} team like`,
    kind: "paraphrase" as const,
  })),
  { memory: { subject: "security", memoryKind: "procedure", confidence: 0.95, daysAgo: 70, text: "Production database credentials are rotated every 90 days through Vault; never paste them into tickets." }, query: "how often are production db passwords rotated", kind: "paraphrase" },
  { memory: { subject: "releases", memoryKind: "decision", confidence: 0.9, daysAgo: 35, text: "Deploy freezes start at 16:00 on Fridays and last until Monday 09:00." }, query: "can I deploy on a Friday afternoon", kind: "word-form" },
  { memory: { subject: "incidents", memoryKind: "procedure", confidence: 0.9, daysAgo: 140, text: "Incidents are declared in the #incidents Slack channel by anyone; the first responder becomes incident commander." }, query: "where do we declare an incident", kind: "word-form" },
  { memory: { subject: "postmortems", memoryKind: "procedure", confidence: 0.85, daysAgo: 130, text: "Postmortems are blameless, written within five working days and reviewed in the Thursday reliability meeting." }, query: "when are postmortems reviewed", kind: "direct" },
  { memory: { subject: "onboarding", memoryKind: "procedure", confidence: 0.8, daysAgo: 210, text: "New engineers get production read access after their second week and a completed security training." }, query: "when do new hires get access to production", kind: "paraphrase" },
  { memory: { subject: "expenses", memoryKind: "fact", confidence: 0.7, daysAgo: 300, text: "Conference travel is approved by the engineering manager and booked through Navan." }, query: "who approves conference travel", kind: "word-form" },
  { memory: { subject: "observability", memoryKind: "decision", confidence: 0.85, daysAgo: 50, text: "All new services emit OpenTelemetry traces; sampling is 10% in production and 100% in staging." }, query: "what is the tracing sample rate in production", kind: "paraphrase" },
  { memory: { subject: "api-style", memoryKind: "preference", confidence: 0.8, daysAgo: 160, text: "Public APIs use cursor pagination with a maximum page size of 100 and ISO 8601 timestamps." }, query: "how should public APIs paginate", kind: "word-form" },
  { memory: { subject: "git", memoryKind: "preference", confidence: 0.8, daysAgo: 240, text: "Branch names follow type/ticket-summary, for example fix/PAY-1432-rounding." }, query: "branch naming convention", kind: "direct" },
  { memory: { subject: "PAY-1432", memoryKind: "event", confidence: 0.8, daysAgo: 15, text: "PAY-1432: invoice totals were off by one cent because of float rounding; fixed by switching to integer cents." }, query: "why were invoice totals off by a cent (PAY 1432)", kind: "identifier" },
];

export function evaluationSet(): { memories: EvalMemory[]; queries: EvalQuery[] } {
  const memories: EvalMemory[] = [];
  const queries: EvalQuery[] = [];
  services.forEach((service, i) => {
    const set = perService(service, i);
    memories.push(...set.memories);
    queries.push(...set.queries);
  });
  general.forEach(({ memory, query, kind }, i) => {
    memories.push({ ...memory, key: `general:${i}` });
    queries.push({ query, kind, relevant: [`general:${i}`] });
  });
  return { memories, queries };
}

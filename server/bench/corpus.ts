/**
 * Synthetic but realistic organization memory for benchmarks: services, incidents, decisions,
 * preferences and procedures with identifiers, versions and people, deterministic for a given seed.
 */

const services = ["payments-api", "billing-worker", "auth-gateway", "search-indexer", "notifications", "ledger", "checkout-web", "inventory-sync", "fraud-scorer", "reporting-etl"];
const people = ["Alice Nguyen", "Bruno Costa", "Chen Wei", "Dana Okafor", "Elif Yilmaz", "Farid Haddad", "Grace Kim", "Hugo Martin"];
const teams = ["platform", "payments", "growth", "data", "security", "support"];
const tools = ["Terraform", "ArgoCD", "Datadog", "PagerDuty", "Sentry", "Grafana", "Kafka", "Redis", "Postgres", "Kubernetes"];

const templates: Array<(r: () => number, pick: <T>(xs: T[]) => T) => { text: string; subject: string; memoryKind: "fact" | "decision" | "procedure" | "preference" | "event" | "observation" }> = [
  (r, pick) => {
    const s = pick(services);
    return { subject: s, memoryKind: "procedure", text: `To deploy ${s}, merge to main, wait for the ${pick(tools)} pipeline to go green, then run make release VERSION=v${1 + Math.floor(r() * 9)}.${Math.floor(r() * 30)}.${Math.floor(r() * 10)} from the ops runner.` };
  },
  (r, pick) => {
    const s = pick(services);
    const n = 1 + Math.floor(r() * 900);
    return { subject: `INC-${n}`, memoryKind: "event", text: `Incident INC-${n}: ${s} returned 5xx errors for ${5 + Math.floor(r() * 55)} minutes after a ${pick(tools)} config change; ${pick(people)} rolled back and added an alert on error rate.` };
  },
  (_r, pick) => {
    const s = pick(services);
    return { subject: s, memoryKind: "decision", text: `Decision: ${s} moves its queue from ${pick(tools)} to ${pick(tools)} to cut latency; approved by ${pick(people)} in the ${pick(teams)} architecture review.` };
  },
  (_r, pick) => ({ subject: pick(teams), memoryKind: "preference", text: `The ${pick(teams)} team prefers small pull requests with a linked ticket, squash merges, and reviews from ${pick(people)} for anything touching ${pick(services)}.` }),
  (r, pick) => {
    const s = pick(services);
    return { subject: s, memoryKind: "fact", text: `${s} is owned by the ${pick(teams)} team; on-call rotation is weekly, the runbook lives in docs/runbooks/${s}.md and dashboards are in ${pick(tools)} (p95 latency budget ${50 + Math.floor(r() * 400)} ms).` };
  },
  (_r, pick) => ({ subject: pick(people), memoryKind: "observation", text: `${pick(people)} noticed that ${pick(services)} retries calls to ${pick(services)} without jitter, which amplified load during the last ${pick(tools)} outage.` }),
];

/** A seeded PRNG (mulberry32), so every run benchmarks the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function* syntheticMemories(count: number, seed = 42) {
  const random = seededRandom(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  for (let i = 0; i < count; i++) yield { ...pick(templates)(random, pick), confidence: Math.round((0.5 + random() * 0.5) * 100) / 100 };
}

export const benchmarkQueries = [
  "how do we deploy payments-api",
  "who owns the ledger service",
  "incident with 5xx errors after config change",
  "which team prefers squash merges",
  "queue migration decision for billing-worker",
  "retries without jitter",
  "runbook for search-indexer",
  "latency budget checkout-web",
  "PagerDuty alert rollback",
  "Kafka to Redis decision",
];

const eventKinds = ["deploy.completed", "deploy.started", "incident.opened", "incident.resolved", "ci.run.failed", "ci.run.succeeded", "pr.opened", "pr.merged", "review.finding", "support.ticket.opened", "vendor.webhook"];

/** Developer events as CI, deploy tooling, incident tools and code review send them; each one distinct. */
export function* syntheticEvents(count: number, seed = 7) {
  const random = seededRandom(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  for (let i = 0; i < count; i++) {
    const type = pick(eventKinds);
    const service = pick(services);
    yield {
      type,
      text: `${type} for ${service} #${i}: ${pick(people)} via ${pick(tools)}`,
      source: pick(["github", "argocd", "pagerduty", "circleci", "zendesk"]),
      subject: type.startsWith("incident") ? `INC-${Math.floor(random() * 500)}` : service,
      metadata: { service, version: `v1.${Math.floor(random() * 40)}.${i % 10}`, environment: pick(["prod-eu", "prod-us", "staging"]), run: i },
    };
  }
}

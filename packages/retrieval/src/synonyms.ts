import { analyzeText } from "./analyze";

/**
 * Words an engineering organization uses for the same thing. People ask in their own words ("prod
 * outage", "who's on call") for memories written in someone else's ("production incident", "pager
 * rotation"); a query term also matches the other words of its group, at a lower weight, so an exact
 * match still ranks first. General vocabulary only: no service, product or person names.
 */
const GROUPS: readonly string[] = [
  "incident inc outage downtime disruption breakage sev",
  "deploy deployment release rollout ship launch",
  "rollback revert",
  "database db datastore",
  "kubernetes k8s",
  "production prod",
  "staging preprod",
  "environment env",
  "configuration config settings setting",
  "repository repo",
  "authentication auth login signin sso",
  "authorization permission permissions rbac",
  "oncall on-call pager paging rotation escalation",
  "owner owns owned maintainer maintains responsible dri",
  "team squad",
  "error failure exception fault",
  "bug defect",
  "latency slowness slow lag",
  "performance perf",
  "cost spend",
  "customer client",
  "documentation docs doc wiki",
  "runbook playbook",
  "test tests testing qa",
  "ci pipeline",
  "pr pull-request merge-request",
  "review approval approve",
  "vacation leave pto holiday ooo",
  "certificate cert tls ssl",
  "secret credential credentials password",
  "memory ram",
  "disk storage volume",
  "load-balancer lb",
  "cache caching cached",
  "queue broker",
  "crash panic oom",
  "upgrade bump",
  "migrate migration moving",
  "decision decided chose adr",
  "deprecated sunset retire retired decommission decommissioned eol",
  "manager lead",
  "engineer developer dev",
  "frontend front-end ui",
  "backend back-end",
  "alert alarm",
  "monitoring observability",
  "logs logging",
  "backup snapshot",
  "hotfix patch fix",
  "limit quota cap",
  "throttle throttling rate-limit",
  "sla agreement",
  "vendor supplier provider",
  "email mail",
  "meeting standup sync",
  "channel room",
  "freeze blackout",
  "restart reboot bounce",
  "flaky intermittent",
  "encrypt encryption encrypted",
  "delete deletion remove removal purge",
  "schedule cron",
  "signup registration onboarding",
  "invoice bill billing",
  "refund chargeback",
  "payment payments",
  "approve approved sign-off signoff",
];

/** Each analysed term to the analysed terms of its groups (a term may sit in more than one group). */
const SYNONYMS: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of GROUPS) {
    // The whole analysed form of each entry (its first term): "on-call" stays "on-call", "deployment" becomes "deploy".
    const terms = [...new Set(group.split(" ").map((word) => analyzeText(word)[0]!))];
    for (const term of terms) {
      const others = map.get(term) ?? new Set<string>();
      for (const other of terms) if (other !== term) others.add(other);
      map.set(term, others);
    }
  }
  return map;
})();

/** The analysed terms of the same meaning as `term` (none for a term outside the thesaurus). */
export function synonymsOf(term: string): ReadonlySet<string> {
  return SYNONYMS.get(term) ?? NONE;
}

const NONE: ReadonlySet<string> = new Set();

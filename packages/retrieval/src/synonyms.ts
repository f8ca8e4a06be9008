import { type AnalysedWord, analyzeWords } from "./analyze";

/**
 * Words and phrases an engineering organization uses for the same thing, and the abbreviations it
 * writes them as. People ask in their own words ("prod outage", "who's the PM") for memories written in
 * someone else's ("production incident", "product manager"); a query word or phrase also matches the
 * other entries of its groups, at a lower weight, so an exact match still ranks first. General
 * vocabulary only: no service, product or person names. Entries are separated by commas; an entry of
 * several words matches a memory holding all of them.
 */
const GROUPS: readonly string[] = [
  "incident, inc, outage, downtime, disruption, breakage, sev",
  "deploy, deployment, release, rollout, ship, launch",
  "rollback, revert",
  "database, db, datastore",
  "kubernetes, k8s",
  "production, prod",
  "staging, preprod",
  "environment, env",
  "configuration, config, settings, setting",
  "repository, repo",
  "authentication, auth, login, signin, sso, single sign-on",
  "authorization, permission, permissions, rbac",
  "on-call, pager, paging, rotation, escalation",
  "owner, owns, owned, maintainer, maintains, responsible, dri",
  "team, squad",
  "error, failure, exception, fault",
  "bug, defect",
  "latency, slowness, slow, lag",
  "performance, perf",
  "cost, spend",
  "customer, client",
  "documentation, docs, doc, wiki",
  "runbook, playbook",
  "test, tests, testing, qa",
  "ci, continuous integration, pipeline",
  "pr, mr, pull request, merge request",
  "review, approval, approve",
  "vacation, leave, pto, holiday, ooo, out of office, time off",
  "certificate, cert, tls, ssl",
  "secret, credential, credentials, password",
  "memory, ram",
  "disk, storage, volume",
  "load balancer, lb",
  "cache, caching, cached",
  "queue, broker",
  "crash, panic, oom, out of memory",
  "upgrade, bump",
  "migrate, migration, moving",
  "decision, decided, chose, adr",
  "deprecated, sunset, retire, retired, decommission, decommissioned, eol",
  "manager, lead",
  "engineer, developer, dev",
  "frontend, front-end, ui, user interface",
  "backend, back-end",
  "alert, alarm",
  "monitoring, observability",
  "logs, logging",
  "backup, snapshot",
  "hotfix, patch, fix",
  "limit, quota, cap",
  "throttle, throttling, rate limit",
  "sla, service level agreement",
  "vendor, supplier, provider",
  "email, mail",
  "meeting, standup, sync",
  "channel, room",
  "freeze, blackout",
  "restart, reboot, bounce",
  "flaky, intermittent",
  "encrypt, encryption, encrypted",
  "delete, deletion, remove, removal, purge",
  "schedule, cron",
  "signup, registration, onboarding",
  "invoice, bill, billing",
  "refund, chargeback",
  "payment, payments",
  "approve, approved, sign-off",
  "pm, product manager, product owner",
  "em, engineering manager",
  "tl, tech lead, technical lead",
  "sre, site reliability",
  "cd, continuous delivery, continuous deployment",
  "slo, service level objective",
  "sms, text message",
  "otp, one-time password, one-time code",
  "mfa, 2fa, two-factor, multi-factor",
  "idp, identity provider",
  "dlq, dead-letter queue",
  "etl, data pipeline",
  "cdn, content delivery network",
  "iam, identity and access management",
  "jwt, json web token",
  "ttl, time to live, expiry",
  "rps, qps, requests per second, throughput",
  "cve, vulnerability",
  "pii, personal data",
  "ux, user experience",
  "cli, command line",
  "infra, infrastructure",
  "ops, operations",
  "vm, virtual machine",
  "os, operating system",
  "ml, machine learning",
  "eod, end of day",
  "rca, root cause, postmortem",
];

/** An entry as index terms: a word's stem, an identifier run together (`on-call` as `oncal`, which `oncall` meets too). */
export type Phrase = readonly string[];

const keyTerm = (word: AnalysedWord) => word.forms[word.parts.length > 0 ? 1 : 0] ?? word.forms[0] ?? word.parts[0]!;
export const phraseOf = (words: readonly AnalysedWord[]): Phrase => words.map(keyTerm);
const phraseKey = (phrase: Phrase) => phrase.join(" ");

/** Each entry (by its key) to the other entries of its groups: an entry may sit in more than one group. */
const SYNONYMS: ReadonlyMap<string, readonly Phrase[]> = (() => {
  const map = new Map<string, Map<string, Phrase>>();
  for (const group of GROUPS) {
    const entries = group.split(",").map((entry) => phraseOf(analyzeWords(entry)));
    for (const entry of entries) {
      const others = map.get(phraseKey(entry)) ?? new Map<string, Phrase>();
      for (const other of entries) if (phraseKey(other) !== phraseKey(entry)) others.set(phraseKey(other), other);
      map.set(phraseKey(entry), others);
    }
  }
  return new Map([...map].map(([key, others]) => [key, [...others.values()]]));
})();

/** The longest entry in the thesaurus, in words: how far a query is scanned for phrases. */
export const LONGEST_ENTRY = Math.max(...[...SYNONYMS.keys()].map((key) => key.split(" ").length));

/** The entries of the same meaning as a word or phrase (none outside the thesaurus). */
export function synonymsOf(phrase: Phrase): readonly Phrase[] {
  return SYNONYMS.get(phraseKey(phrase)) ?? [];
}

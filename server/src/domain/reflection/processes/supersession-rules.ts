import type { TMemoryKind } from "@engram/contract";
import { analyzeText } from "@engram/retrieval";

/*
 * The text signals contradiction checking reads. Every pattern is a plain alternation of words (at most one
 * whitespace run inside) or bounded digit runs, so it runs in time linear in the text, whatever its content.
 */

/** The subject as memories are compared by: case and surrounding space do not make another subject. */
export function subjectKey(subject: string | null): string | null {
  const key = subject?.trim().toLowerCase();
  return key ? key : null;
}

/** Kinds that describe the state of the world: a version named in any of them replaces one named in another. */
const KIND_FAMILIES: Record<TMemoryKind, string> = {
  fact: "state",
  event: "state",
  observation: "state",
  decision: "decision",
  preference: "preference",
  procedure: "procedure",
};

export const kindFamily = (kind: TMemoryKind): string => KIND_FAMILIES[kind];

const OPEN_INCIDENT = /\b(?:open|opened|ongoing|investigating|degraded)\b/i;
const CLOSED_INCIDENT = /\b(?:resolved|closed|mitigated|fixed|recovered)\b/i;

/**
 * The word saying an incident is still open, or null. A text that also says it ended (“opened Monday,
 * resolved Tuesday”) is not overturned by the resolution.
 */
export function saysIncidentOpen(text: string): string | null {
  if (CLOSED_INCIDENT.test(text)) return null;
  return OPEN_INCIDENT.exec(text)?.[0].toLowerCase() ?? null;
}

const REVERSAL =
  /\b(?:revers(?:e|ed|es|ing)|revert(?:ed|s|ing)?|no\s+longer|instead\s+of|replac(?:e|es|ed|ing)|supersed(?:e|es|ed|ing)|roll(?:ed|ing)?\s+back|switch(?:ed|es|ing)?\s+from)\b/i;

/** The words by which a decision says it reverses an earlier one, or null. */
export function reversalSignal(text: string): string | null {
  return REVERSAL.exec(text)?.[0].toLowerCase().replace(/\s+/g, " ") ?? null;
}

/** Words every decision or reversal shares; they say nothing about what was decided. */
const DECISION_WORDS = new Set(
  analyzeText(
    "decide decided decision decisions we us team use uses using used going forward now from now on instead longer " +
      "reverse reversed reverses reversing revert reverted reverts reverting replace replaces replaced replacing " +
      "supersede supersedes superseded superseding roll rolled rolling back switch switched switches switching",
  ),
);

/** What a decision is about: its analysed terms without the subject's and the words of deciding. */
export function decisionTerms(text: string, subject: string | null): Set<string> {
  const subjectTerms = new Set(subject ? analyzeText(subject) : []);
  return new Set(analyzeText(text).filter((term) => !subjectTerms.has(term) && !DECISION_WORDS.has(term)));
}

/**
 * Whether two decisions are about the same thing: at least half the terms of the one that says less are in the
 * other. One shared word is not enough ("Postgres for the ledger database" and "no longer MySQL for the ledger
 * reporting replica" share only "ledger").
 */
export function sameMatter(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const term of small) if (large.has(term)) shared += 1;
  return shared > 0 && shared * 2 >= small.size;
}

const ROLLBACK = /\b(?:again|roll(?:ed|ing)?\s+back|revert(?:ed|s|ing)?|downgrad(?:e|ed|es|ing)|back\s+to)\b/i;

/**
 * Whether a text naming a lower version than an earlier memory says the thing went back to it ("runs v3.1.0
 * again", "rolled back to 1.8"). Otherwise a lower version is history ("v1.8 was deprecated last year"), not the
 * current one, and replaces nothing.
 */
export const saysRollback = (text: string): boolean => ROLLBACK.test(text);

/**
 * A version a text names, and the name written just before it: what it is a version of (`node 18.0.0`), or
 * null for the subject itself (`payments-api v1.2`, `runs 1.2.3`).
 */
export interface NamedVersion {
  /** Major, minor and patch, a missing patch read as 0: `v1.2` and `1.2.0` are the same version. */
  version: string;
  label: string | null;
}

/**
 * `v1.2`, `v1.2.3` or `1.2.3` standing alone: not inside a longer dotted number (an address, `1.2.3.4`) or a
 * word. Two parts without a `v` (`1.5 seconds`) are not read as a version.
 */
const VERSION = /(?<![\w.])(v?)(\d{1,9})\.(\d{1,9})(?:\.(\d{1,9}))?(?!\w|\.\d)/gi;
/** The word before a version, looked for only in the few characters before it. */
const LABEL = /([a-z][\w-]*)[\s@:=]+$/i;
const LABEL_WINDOW = 64;
/**
 * Words that sit before a version without naming what it is a version of. A word missing here reads as a name,
 * which only keeps two versions from being compared: a missed contradiction, never a false one.
 */
const NOT_LABELS = new Set(
  (
    "a an the to from at on in of is was are were be been will now then still currently again already also just only " +
    "and or but so than vs via into onto over after before since until it its this that our we they new old current " +
    "previous prior next stable latest version versions ver release releases build tag v with as by for " +
    "running runs run uses use using deployed deploys deploy upgraded upgrade upgrades downgraded downgrade " +
    "pinned pin pins bumped bump moved moving migrated migrate installed install installs adopted switched reverted " +
    "updated update shipped ships released rolled back requires require needs stays stayed remains reached hit"
  ).split(" "),
);

/** The versions a text about `subject` (a subject key) names. */
export function namedVersions(text: string, subject: string | null): NamedVersion[] {
  const found: NamedVersion[] = [];
  const subjectWords = subject?.split(/\s+/) ?? [];
  for (const match of text.matchAll(VERSION)) {
    const [, prefix, major, minor, patch] = match;
    if (!prefix && patch === undefined) continue;
    const version = [major, minor, patch ?? "0"].map((part) => String(Number(part))).join(".");
    const before = LABEL.exec(text.slice(Math.max(0, match.index - LABEL_WINDOW), match.index))?.[1]?.toLowerCase() ?? null;
    const namesSubject = before !== null && (before === subject || subjectWords.includes(before));
    found.push({ version, label: before && !namesSubject && !NOT_LABELS.has(before) ? before : null });
  }
  return found;
}

export function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/**
 * The most things one memory is read to state versions of (the first named): a release note names a handful,
 * while a text of hundreds made reflection compare each with every newer memory's.
 */
export const MAX_THINGS_VERSIONED = 32;

/**
 * The version a memory states of each thing it names (at most MAX_THINGS_VERSIONED): the highest it names of
 * it, so "upgraded from v1.2 to v1.3" states 1.3. Two versions are of the same thing only when named alike: the
 * subject's own version never replaces the version of something it uses (`payments-api v1.3` and
 * `payments-api requires node 18.0.0`).
 */
export function statedVersions(versions: readonly NamedVersion[]): Map<string | null, string> {
  const stated = new Map<string | null, string>();
  for (const { label, version } of versions) {
    const highest = stated.get(label);
    if (highest === undefined ? stated.size < MAX_THINGS_VERSIONED : compareVersions(version, highest) > 0) stated.set(label, version);
  }
  return stated;
}

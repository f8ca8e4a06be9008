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

/**
 * - `direct`: the question shares its key words with the memory.
 * - `paraphrase`: the question says the same thing in other words (everyday wording, a description instead of a name).
 * - `synonym`: one or two key words swapped for a synonym or an abbreviation people use ("k8s", "db", "prod", "pager").
 * - `word-form`: other inflections of the memory's words (deploy/deployed/deployment, rotate/rotation).
 * - `identifier`: ticket ids, versions, error codes, paths, service names written another way (INC 2207, PaymentsGateway).
 * - `camel-case`: configuration names (camelCase, snake_case, env vars) asked about by name or by their parts.
 * - `changed-over-time`: the answer was replaced; only the newest memory is labelled, the older ones are listed as `stale`.
 * - `common-words`: long, chatty questions where most words are common ones.
 * - `multi-fact`: the answer needs two or more memories; all of them are labelled.
 */
export type QueryKind =
  | "paraphrase"
  | "synonym"
  | "word-form"
  | "identifier"
  | "changed-over-time"
  | "camel-case"
  | "direct"
  | "common-words"
  | "multi-fact";

export interface EvalQuery {
  query: string;
  kind: QueryKind;
  /** Keys of the memories that answer it. */
  relevant: string[];
  /** For `changed-over-time`: keys of the older memories whose answer was replaced (distractors, not relevant). */
  stale?: string[];
}

export interface DatasetPart {
  memories: EvalMemory[];
  queries: EvalQuery[];
}

export interface MemoryOptions {
  /** Subject; defaults to the part's current subject (see `Part.about`). Pass null for none. */
  s?: string | null;
  /** Confidence; defaults to a stable value between 0.7 and 0.95 derived from the key. */
  c?: number;
  /** Days ago it was encoded; defaults to a stable value between 20 and 400 derived from the key (older than its reinforcements). */
  d?: number;
  /** Days ago it was reinforced, once per entry. */
  r?: number[];
}

/** A stable small hash, used for default ages and confidences so the set is the same on every run. */
export function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The benchmark corpus's seeded pseudo-random generator (mulberry32), so every run sees the same set. */
export { seededRandom as rng } from "../../bench/corpus";

/**
 * Collects one domain's memories and queries. Memory keys are `prefix:name`; queries name their memories by
 * the local name (or by a full key from another part, which contains a colon).
 */
export class Part implements DatasetPart {
  readonly memories: EvalMemory[] = [];
  readonly queries: EvalQuery[] = [];
  private subject: string | undefined;

  constructor(private readonly prefix: string) {}

  /** Sets the default subject of the memories added next. */
  about(subject: string | undefined): this {
    this.subject = subject;
    return this;
  }

  key(name: string): string {
    return name.includes(":") ? name : `${this.prefix}:${name}`;
  }

  add(memoryKind: TMemoryKind, name: string, text: string, options: MemoryOptions = {}): string {
    const key = this.key(name);
    const h = hash(key);
    const subject = options.s === null ? undefined : (options.s ?? this.subject);
    const memory: EvalMemory = {
      key,
      text,
      memoryKind,
      confidence: options.c ?? Math.round((0.7 + (h % 26) / 100) * 100) / 100,
      // A memory is encoded before it is reinforced: a default age is pushed back behind its reinforcements.
      daysAgo: options.d ?? Math.max(20 + (h % 381), Math.max(0, ...(options.r ?? [])) + 10 + (h % 50)),
    };
    if (subject !== undefined) memory.subject = subject;
    if (options.r?.length) memory.reinforcedDaysAgo = options.r;
    this.memories.push(memory);
    return key;
  }

  fact(name: string, text: string, options?: MemoryOptions): string {
    return this.add("fact", name, text, options);
  }
  decision(name: string, text: string, options?: MemoryOptions): string {
    return this.add("decision", name, text, options);
  }
  procedure(name: string, text: string, options?: MemoryOptions): string {
    return this.add("procedure", name, text, options);
  }
  preference(name: string, text: string, options?: MemoryOptions): string {
    return this.add("preference", name, text, options);
  }
  event(name: string, text: string, options?: MemoryOptions): string {
    return this.add("event", name, text, options);
  }
  observation(name: string, text: string, options?: MemoryOptions): string {
    return this.add("observation", name, text, options);
  }

  ask(kind: QueryKind, query: string, relevant: string | string[], stale?: string | string[]): this {
    const entry: EvalQuery = { query, kind, relevant: [relevant].flat().map((name) => this.key(name)) };
    if (stale !== undefined) entry.stale = [stale].flat().map((name) => this.key(name));
    this.queries.push(entry);
    return this;
  }
}

import type { ProcessResult, ReflectionContext, ReflectionProcess } from "../process";
import type { ReflectionMemory } from "../records";
import { type Change, applyChanges, flagChange, scopePages } from "./scope-pages";
import {
  compareVersions,
  decisionTerms,
  kindFamily,
  namedVersions,
  reversalSignal,
  saysIncidentOpen,
  sameMatter,
  saysRollback,
  statedVersions,
  subjectKey,
} from "./supersession-rules";

/**
 * A superseded memory is demoted, not hidden: its confidence drops to at most this, so ranking puts it below
 * what replaced it, while it stays durable and retrievable with its link to the replacement.
 */
export const SUPERSEDED_CONFIDENCE = 0.3;

type Rule = "incident_resolved" | "version_replaced" | "decision_reversed";

interface Overturn {
  rule: Rule;
  /** The newer memory's id, or the id of the event that resolved the workflow. */
  by: string;
  reason: string;
}

interface Dated {
  id: string;
  createdAt: Date;
}

/** What overturns memories in the scope, read in a first pass so that a memory's replacement may be on a later page. */
interface Overturners {
  /** Resolved incidents by subject. */
  resolvedIncidents: Map<string, { subject: string; lastEventId: string; updatedAt: Date }>;
  /**
   * Per agent, subject and kind family, and per thing named (a label, or null for the subject itself): the
   * memories stating a version of it, newest first, each with the version it states; `rollback` when one says it
   * went back.
   */
  versions: Map<string, Map<string | null, VersionStatement[]>>;
  /** Decisions that say they reverse something, oldest first, per agent and subject. */
  reversals: Map<string, Array<Dated & { terms: Set<string>; signal: string }>>;
}

interface VersionStatement extends Dated {
  current: string;
  rollback: boolean;
}

/** Agents keep their own memories: one agent's newer memory does not overturn another's. */
const groupKey = (memory: ReflectionMemory, subject: string, family = "") => JSON.stringify([memory.agentSlug, subject, family]);
const isNewer = (candidate: Dated, than: Dated) => candidate.createdAt.getTime() > than.createdAt.getTime();

async function readOverturners(ctx: ReflectionContext): Promise<Overturners> {
  const resolvedIncidents: Overturners["resolvedIncidents"] = new Map();
  for (const state of await ctx.memories.workflowStates(ctx.scope)) {
    const subject = subjectKey(state.subject);
    if (state.workflow === "incident" && state.state === "resolved" && subject) resolvedIncidents.set(subject, state);
  }
  const versions: Overturners["versions"] = new Map();
  const reversals: Overturners["reversals"] = new Map();
  for await (const page of scopePages(ctx, ["durable"])) {
    for (const memory of page) {
      const subject = subjectKey(memory.subject);
      // A demoted memory replaces nothing.
      if (!subject || memory.supersededBy) continue;
      const stated = statedVersions(namedVersions(memory.text, subject));
      if (stated.size > 0) {
        const key = groupKey(memory, subject, kindFamily(memory.memoryKind));
        const byThing = versions.get(key) ?? new Map<string | null, VersionStatement[]>();
        const rollback = saysRollback(memory.text);
        for (const [label, current] of stated) {
          const list = byThing.get(label) ?? [];
          list.push({ id: memory.id, createdAt: memory.createdAt, current, rollback });
          byThing.set(label, list);
        }
        versions.set(key, byThing);
      }
      const signal = memory.memoryKind === "decision" ? reversalSignal(memory.text) : null;
      if (signal) {
        const key = groupKey(memory, subject);
        const list = reversals.get(key) ?? [];
        list.push({ id: memory.id, createdAt: memory.createdAt, terms: decisionTerms(memory.text, memory.subject), signal });
        reversals.set(key, list);
      }
    }
  }
  for (const byThing of versions.values()) for (const list of byThing.values()) list.reverse();
  return { resolvedIncidents, versions, reversals };
}

/**
 * The newest later memory that states another current version of `label` than `version`, or null when the newest
 * statement agrees. A higher version replaces this one; a lower one only when its memory says the thing went
 * back to it ("runs v3.1.0 again"). Without that, a lower version is history ("v1.8 was deprecated"), and an
 * earlier statement decides.
 */
function currentVersionAfter(memory: Dated, version: string, newestFirst: readonly VersionStatement[]) {
  for (const entry of newestFirst) {
    if (!isNewer(entry, memory)) break;
    const order = compareVersions(entry.current, version);
    if (order === 0) return null;
    if (order > 0 || entry.rollback) return { id: entry.id, current: entry.current };
  }
  return null;
}

/** The first rule that overturns the memory, or null. Conservative: without a shared subject nothing is overturned. */
function overturnOf(memory: ReflectionMemory, overturners: Overturners): Overturn | null {
  const subject = subjectKey(memory.subject);
  if (!subject || memory.supersededBy) return null;

  const incident = overturners.resolvedIncidents.get(subject);
  if (incident && incident.updatedAt > memory.createdAt && incident.lastEventId !== memory.eventId) {
    const word = saysIncidentOpen(memory.text);
    if (word) {
      return {
        rule: "incident_resolved",
        by: incident.lastEventId,
        reason: `superseded: incident ${incident.subject} was resolved at ${incident.updatedAt.toISOString()} (event ${incident.lastEventId}) after this memory called it "${word}"`,
      };
    }
  }

  const statements = overturners.versions.get(groupKey(memory, subject, kindFamily(memory.memoryKind)));
  for (const [label, version] of statedVersions(namedVersions(memory.text, subject))) {
    const replacement = currentVersionAfter(memory, version, statements?.get(label) ?? []);
    if (replacement) {
      const thing = label ? `${label} for ${memory.subject!.trim()}` : memory.subject!.trim();
      return {
        rule: "version_replaced",
        by: replacement.id,
        reason: `superseded by ${replacement.id}: version ${replacement.current} of ${thing} replaces the ${version} this memory names`,
      };
    }
  }

  if (memory.memoryKind === "decision") {
    const later = overturners.reversals.get(groupKey(memory, subject))?.filter((entry) => isNewer(entry, memory)) ?? [];
    if (later.length > 0) {
      const terms = decisionTerms(memory.text, memory.subject);
      // The first later decision that reverses this one; a later reversal of that one supersedes it in turn.
      const reversal = later.find((entry) => sameMatter(entry.terms, terms));
      if (reversal) {
        return {
          rule: "decision_reversed",
          by: reversal.id,
          reason: `superseded by decision ${reversal.id}, which reverses it ("${reversal.signal}") about ${memory.subject!.trim()}`,
        };
      }
    }
  }
  return null;
}

/**
 * Durable memories that a newer memory or a workflow overturned (an incident later resolved, a version later
 * replaced, a decision later reversed) are linked to their replacement and demoted. They stay durable: nothing
 * disappears, and a person can restore what reflection judged out of date (the link cleared, the confidence set
 * back), after which the same replacement does not supersede it again.
 */
export const contradictionsProcess: ReflectionProcess = {
  name: "contradictions",
  async run(ctx: ReflectionContext): Promise<ProcessResult> {
    const overturners = await readOverturners(ctx);
    const at = ctx.clock();
    let examined = 0;
    let actions = 0;
    for await (const page of scopePages(ctx, ["durable"])) {
      examined += page.length;
      const changes: Change[] = [];
      for (const memory of page) {
        const overturn = overturnOf(memory, overturners);
        // A person restored it from this replacement once: that judgment stands (a newer replacement may still come).
        if (!overturn || overturn.by === memory.supersessionDismissedBy) continue;
        const confidence = Math.min(memory.confidence, SUPERSEDED_CONFIDENCE);
        changes.push(
          flagChange(
            ctx,
            {
              memoryId: memory.id,
              process: "contradictions",
              action: "superseded",
              reason: `${overturn.reason}; confidence lowered from ${memory.confidence.toFixed(2)} to ${confidence.toFixed(2)} so the replacement ranks first`,
              relatedId: overturn.by,
              details: { rule: overturn.rule, previousConfidence: memory.confidence, confidence },
              state: "durable",
              set: { supersededBy: overturn.by, confidence },
            },
            at,
          ),
        );
      }
      actions += await applyChanges(ctx, changes);
    }
    return { examined, actions };
  },
};

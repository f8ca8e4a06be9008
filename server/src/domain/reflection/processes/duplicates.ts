import { analyzeText } from "@engram/retrieval";
import { CHANGES_PER_TRANSACTION, type ProcessResult, REFLECTION_BATCH, type ReflectionContext, type ReflectionProcess } from "../process";
import { type Entry, entryOf, type Merge, mergesOf, similarity } from "./merge-plan";
import { similarGroups, type TermSet, termSet } from "./near-duplicates";
import { BOOKKEEPING_UNITS, type Pace, pacer, textUnits } from "./pacing";
import { scopePages } from "./scope-pages";

/** Ids named in a survivor's reason; each duplicate's own event names the survivor. */
const NAMED_IN_REASON = 20;
/**
 * Ids named in a survivor's event details, with the count of all: thousands of duplicates absorbed at once would
 * make one event, and a page of such events, megabytes of JSON.
 */
const NAMED_IN_DETAILS = 100;

/** Floored to two places, so the figure shown never rises above the exact one. */
const shown = (similarity: number) => (Math.floor(similarity * 100) / 100).toFixed(2);

/** Every durable memory of the scope as an entry to compare, read a page at a time and analysed in paced steps. */
async function readEntries(context: ReflectionContext, pace: Pace): Promise<{ entries: Entry[]; examined: number }> {
  const entries: Entry[] = [];
  const subjects = new Map<string, TermSet>();
  const termsOf = (subject: string) => {
    let terms = subjects.get(subject);
    if (!terms) subjects.set(subject, (terms = termSet(analyzeText(subject).join(" "))));
    return terms;
  };
  let examined = 0;
  for await (const page of scopePages(context, ["durable"])) {
    examined += page.length;
    for (const memory of page) {
      // A durable memory that points to a survivor was merged once and restored by a person since: that
      // decision stands, so reflection leaves it out rather than merge it again every run.
      if (memory.duplicateOfId !== null) continue;
      entries.push(entryOf(memory, termsOf));
      if (pace.due(textUnits(memory.searchText))) await pace.pause();
    }
  }
  return { entries, examined };
}

/** Thrown inside a merge's transaction to roll it back when its survivor is no longer durable. */
class SurvivorChanged extends Error {}

/**
 * Suppresses the duplicates and reinforces the survivor once, each change a compare-and-set with its
 * history row and event. A merge commits a few duplicates a transaction (CHANGES_PER_TRANSACTION), the
 * survivor's reinforcement with the last, and yields between them: on SQLite a transaction holds the event
 * loop, and a survivor may absorb thousands. Answers the changes made.
 */
async function applyMerge(context: ReflectionContext, { survivor, duplicates }: Merge): Promise<number> {
  const { scope, runId } = context;
  const absorbed: string[] = [];
  let changes = 0;
  for (let start = 0; start < duplicates.length; start += CHANGES_PER_TRANSACTION) {
    const chunk = duplicates.slice(start, start + CHANGES_PER_TRANSACTION);
    const last = start + CHANGES_PER_TRANSACTION >= duplicates.length;
    try {
      const suppressed = await context.transaction(async (memories) => {
        await memories.lock(scope, [...chunk.map(({ entry }) => entry.id), ...(last ? [survivor.id] : [])]);
        const at = context.clock();
        const ids: string[] = [];
        for (const { entry, similarity } of chunk) {
          // Suppressed rather than tombstoned: POST /v1/memory/:id/restore brings a wrong merge back.
          const changed = await memories.changeState(
            scope,
            runId,
            {
              memoryId: entry.id,
              process: "duplicates",
              action: "suppressed_duplicate",
              reason: `duplicate of ${survivor.id} (similarity ${shown(similarity)})`,
              relatedId: survivor.id,
              details: { similarity, threshold: context.settings.processes.duplicates.similarity },
              from: "durable",
              to: "suppressed",
              links: { duplicateOfId: survivor.id },
            },
            at,
          );
          if (changed) ids.push(entry.id);
        }
        const all = [...absorbed, ...ids];
        if (last && all.length > 0) {
          const named = all.slice(0, NAMED_IN_REASON).join(", ");
          const more = all.length > NAMED_IN_REASON ? ` and ${all.length - NAMED_IN_REASON} more` : "";
          const reinforced = await memories.reinforce(
            scope,
            runId,
            {
              memoryId: survivor.id,
              process: "duplicates",
              action: "reinforced_survivor",
              reason: `absorbed ${all.length} duplicate${all.length === 1 ? "" : "s"}: ${named}${more}`,
              details: { duplicateIds: all.slice(0, NAMED_IN_DETAILS), duplicateCount: all.length },
            },
            at,
          );
          if (!reinforced) throw new SurvivorChanged();
          return { ids, reinforced: 1 };
        }
        return { ids, reinforced: 0 };
      });
      absorbed.push(...suppressed.ids);
      changes += suppressed.ids.length + suppressed.reinforced;
    } catch (error) {
      if (error instanceof SurvivorChanged) return changes;
      throw error;
    }
    await context.pause();
  }
  return changes;
}

/**
 * Merges near-duplicate durable memories within one scope: one organization, one environment and one
 * agent (memories shared by the organization are a scope of their own). Two memories are near-duplicates
 * when their subjects agree (or one has none) and the Jaccard similarity of their analysed terms, the
 * subject's aside, reaches the `similarity` setting. The survivor is reinforced once per run in which it
 * absorbed duplicates; the duplicates are suppressed with a link to it (`duplicateOfId`). Nothing is deleted.
 */
export const duplicatesProcess: ReflectionProcess = {
  name: "duplicates",
  async run(context): Promise<ProcessResult> {
    const threshold = context.settings.processes.duplicates.similarity;
    // One count of work through reading, grouping and planning, so no turn carries one step's work into the next.
    const pace: Pace = { due: pacer(REFLECTION_BATCH), pause: context.pause };
    const { entries, examined } = await readEntries(context, pace);

    const byAgent = new Map<string | null, Entry[]>();
    for (const entry of entries) {
      const agent = byAgent.get(entry.agentSlug);
      if (agent) agent.push(entry);
      else byAgent.set(entry.agentSlug, [entry]);
      if (pace.due(BOOKKEEPING_UNITS)) await pace.pause();
    }

    let actions = 0;
    for (const scoped of byAgent.values()) {
      const groups = await similarGroups(scoped.map((entry) => entry.terms), { threshold, similarity: (a, b) => similarity(scoped[a]!, scoped[b]!), pace });
      for (const group of groups) {
        const merges = await mergesOf(group.map((i) => scoped[i]!), threshold, pace);
        for (const merge of merges) actions += await applyMerge(context, merge);
      }
    }
    return { examined, actions };
  },
};

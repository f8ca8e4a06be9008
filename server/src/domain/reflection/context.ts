import type { TReflectionSettings } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import { backgroundPauses } from "../kernel/background-turns";
import { waitMeter } from "../kernel/wait-meter";
import type { Store } from "../store";
import { REFLECTION_SHARE, type ReflectionContext } from "./process";
import type { ReflectionScope } from "./records";

/** The context a process runs in, over the store. */
export function reflectionContext(store: Store, input: { scope: ReflectionScope; runId: string; settings: TReflectionSettings; clock: Clock }): ReflectionContext {
  const waits = waitMeter();
  const { memories, transaction } = store.reflection(waits);
  return {
    ...input,
    memories,
    transaction,
    // Requests queued behind a batch run before the next one, and on a busy loop take most of the time it held
    // the loop (its waits for the database are not that: others ran in them).
    pause: backgroundPauses(REFLECTION_SHARE, { waits }),
  };
}

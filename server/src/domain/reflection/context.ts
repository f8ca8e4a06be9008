import type { TReflectionSettings } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import { backgroundPauses } from "../kernel/background-turns";
import type { Store } from "../store";
import { REFLECTION_SHARE, type ReflectionContext } from "./process";
import type { ReflectionScope } from "./records";

/** The context a process runs in, over the store. */
export function reflectionContext(store: Store, input: { scope: ReflectionScope; runId: string; settings: TReflectionSettings; clock: Clock }): ReflectionContext {
  return {
    ...input,
    memories: store.reflectionMemories,
    transaction: (work) => store.reflectionTransaction(work),
    // Requests queued behind a batch run before the next one, and on a busy loop take most of its time.
    pause: backgroundPauses(REFLECTION_SHARE),
  };
}

import type { TReflectionSettings } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import type { Store } from "../store";
import type { ReflectionContext } from "./process";
import type { ReflectionScope } from "./records";

/** Yields to the event loop: requests queued behind a batch run before the next one. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The context a process runs in, over the store. */
export function reflectionContext(store: Store, input: { scope: ReflectionScope; runId: string; settings: TReflectionSettings; clock: Clock }): ReflectionContext {
  return {
    ...input,
    memories: store.reflectionMemories,
    transaction: (work) => store.transaction((tx) => work(tx.reflectionMemories)),
    pause: nextTurn,
  };
}

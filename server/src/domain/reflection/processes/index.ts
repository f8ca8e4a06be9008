import type { ReflectionProcess } from "../process";
import { activationUpkeepProcess } from "./activation-upkeep";
import { candidatesProcess } from "./candidates";
import { contradictionsProcess } from "./contradictions";
import { duplicatesProcess } from "./duplicates";
import { stalenessProcess } from "./staleness";

/**
 * Every process, in the order a run goes through them: candidates first (a promoted one takes part in the
 * rest), then merging duplicates before judging what they say, and activation last, over what remains.
 */
export const reflectionProcesses: readonly ReflectionProcess[] = [
  candidatesProcess,
  duplicatesProcess,
  contradictionsProcess,
  stalenessProcess,
  activationUpkeepProcess,
];

/**
 * A labelled evaluation set that resembles the memory of a software company (Tallyfox, a B2B invoicing and
 * billing SaaS): service ownership, deploy and rollback procedures, runbooks, incidents with ticket ids and
 * error codes, architecture decisions (many of which changed over time), team conventions, people and roles,
 * vendors, configuration names, customers and support policies, and a lot of noise (CI and deploy
 * notifications, alerts, dependency bumps, meeting notes, tickets) that shares words with the questions.
 *
 * Queries are written the way people ask: other words and abbreviations, other word forms, identifiers
 * written differently, questions whose answer changed (only the newest memory is labelled), long chatty
 * questions, and questions that need several memories. The set was written without looking at the engine,
 * as a blind test. Deterministic: the same set on every run.
 *
 * One module per domain in ./dataset/; see ./dataset/types.ts for the kinds of queries.
 */
import { configPart } from "./dataset/config";
import { conventionsPart } from "./dataset/conventions";
import { customersPart } from "./dataset/customers";
import { decisionsPart } from "./dataset/decisions";
import { incidentsPart } from "./dataset/incidents";
import { noisePart } from "./dataset/noise";
import { peoplePart } from "./dataset/people";
import { runbooksPart } from "./dataset/runbooks";
import { servicesPart } from "./dataset/services";
import type { EvalMemory, EvalQuery } from "./dataset/types";
import { vendorsPart } from "./dataset/vendors";

export type { EvalMemory, EvalQuery, QueryKind } from "./dataset/types";

export function evaluationSet(): { memories: EvalMemory[]; queries: EvalQuery[] } {
  const parts = [servicesPart(), incidentsPart(), decisionsPart(), peoplePart(), conventionsPart(), configPart(), vendorsPart(), customersPart(), runbooksPart(), noisePart()];
  return { memories: parts.flatMap((part) => part.memories), queries: parts.flatMap((part) => part.queries) };
}

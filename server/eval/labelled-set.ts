/**
 * One shape for every evaluation set, so one runner measures them all: memories with the moment they were
 * written (and reinforced), questions with the moment they are asked and the memories that answer them, each
 * optionally inside one agent's boundary.
 */
import type { TMemoryKind } from "@engram/contract";
import { conversations } from "./conversations";
import { evaluationSet } from "./dataset";
import { hash } from "./dataset/types";

export interface LabelledMemory {
  key: string;
  text: string;
  subject?: string;
  memoryKind: TMemoryKind;
  confidence?: number;
  at: Date;
  reinforcedAt?: Date[];
  /** The agent whose boundary it is written in; none: the organization's shared memory. */
  agent?: string;
}

export interface LabelledQuery {
  query: string;
  kind: string;
  relevant: string[];
  at: Date;
  agent?: string;
}

export interface LabelledSet {
  name: string;
  memories: LabelledMemory[];
  queries: LabelledQuery[];
}

/** Which half a question belongs to, fixed before any tuning: constants are chosen on the tuning half only. */
export function isHeldOut(query: { query: string }): boolean {
  return hash(query.query) % 2 === 1;
}

const DAY_MS = 86_400_000;

/** The engineering organization's memory (./dataset), asked on 1 November 2026. */
export function organizationSet(): LabelledSet {
  const askedAt = new Date("2026-11-01T12:00:00Z");
  const ago = (days: number) => new Date(askedAt.getTime() - days * DAY_MS);
  const { memories, queries } = evaluationSet();
  return {
    name: "organization (engineering memory)",
    memories: memories.map(({ key, text, subject, memoryKind, confidence, daysAgo, reinforcedDaysAgo }) => ({
      key,
      text,
      ...(subject === undefined ? {} : { subject }),
      memoryKind,
      confidence,
      at: ago(daysAgo),
      ...(reinforcedDaysAgo ? { reinforcedAt: reinforcedDaysAgo.map(ago) } : {}),
    })),
    queries: queries.map(({ query, kind, relevant }) => ({ query, kind, relevant, at: askedAt })),
  };
}

/**
 * The conversations (./conversations) as a chat application would remember them: each turn one memory,
 * "Speaker: text", written at its session's date (turns a minute apart), in the boundary of an agent of its
 * own conversation; every question asked the day after its conversation's last session.
 */
export function conversationSet(): LabelledSet {
  const memories: LabelledMemory[] = [];
  const queries: LabelledQuery[] = [];
  for (const conversation of conversations) {
    const agent = conversation.id;
    for (const session of conversation.sessions) {
      const start = new Date(`${session.date}T18:00:00Z`).getTime();
      session.turns.forEach((turn, i) => {
        memories.push({ key: `${agent}:${turn.id}`, text: `${turn.speaker}: ${turn.text}`, memoryKind: "observation", at: new Date(start + i * 60_000), agent });
      });
    }
    const last = conversation.sessions.at(-1)!;
    const askedAt = new Date(new Date(`${last.date}T12:00:00Z`).getTime() + DAY_MS);
    for (const question of conversation.questions) {
      queries.push({ query: question.question, kind: question.kind, relevant: question.evidence.map((id) => `${agent}:${id}`), at: askedAt, agent });
    }
  }
  return { name: "conversations (multi-session chats)", memories, queries };
}

import { memoryLimits, ZMemoryKind } from "@engram/contract";
import { describe, expect, it } from "vitest";
import { conversations } from "../eval/conversations";
import { evaluationSet } from "../eval/dataset";
import { conversationSet, isHeldOut } from "../eval/labelled-set";

describe("the retrieval evaluation set", () => {
  const { memories, queries } = evaluationSet();
  const byKey = new Map(memories.map((memory) => [memory.key, memory]));

  it("is large enough: several hundred memories and at least 300 labelled queries", () => {
    expect(memories.length).toBeGreaterThanOrEqual(800);
    expect(queries.length).toBeGreaterThanOrEqual(300);
  });

  it("has unique memory keys and no repeated question", () => {
    expect(byKey.size).toBe(memories.length);
    expect(new Set(queries.map((query) => query.query)).size).toBe(queries.length);
  });

  it("labels every query with memories that exist, and never a memory as both relevant and stale", () => {
    for (const query of queries) {
      expect(query.relevant.length, query.query).toBeGreaterThan(0);
      for (const key of [...query.relevant, ...(query.stale ?? [])]) expect(byKey.has(key), `${query.query} -> ${key}`).toBe(true);
      for (const key of query.stale ?? []) expect(query.relevant, query.query).not.toContain(key);
    }
  });

  it("labels each changed-over-time query with the newest of its memories only", () => {
    const changed = queries.filter((query) => query.kind === "changed-over-time");
    expect(changed.length).toBeGreaterThanOrEqual(30);
    for (const query of changed) {
      expect(query.stale?.length, query.query).toBeGreaterThan(0);
      const newestStale = Math.min(...query.stale!.map((key) => byKey.get(key)!.daysAgo));
      for (const key of query.relevant) expect(byKey.get(key)!.daysAgo, `${query.query} -> ${key}`).toBeLessThan(newestStale);
    }
  });

  it("mixes the kinds of questions", () => {
    const counts = new Map<string, number>();
    for (const query of queries) counts.set(query.kind, (counts.get(query.kind) ?? 0) + 1);
    for (const kind of ["paraphrase", "synonym", "word-form", "identifier", "changed-over-time", "camel-case", "direct", "common-words", "multi-fact"]) {
      expect(counts.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(15);
    }
    expect(queries.filter((query) => query.kind === "multi-fact").every((query) => query.relevant.length >= 2)).toBe(true);
  });

  it("holds memories the API would accept, with varied ages, confidences and reinforcements", () => {
    for (const memory of memories) {
      expect(ZMemoryKind.options).toContain(memory.memoryKind);
      expect(memory.text.length).toBeGreaterThan(0);
      expect(memory.text.length).toBeLessThanOrEqual(memoryLimits.textMaxLength);
      expect(memory.confidence).toBeGreaterThanOrEqual(0);
      expect(memory.confidence).toBeLessThanOrEqual(1);
      expect(memory.daysAgo).toBeGreaterThanOrEqual(0);
      for (const days of memory.reinforcedDaysAgo ?? []) expect(days).toBeLessThanOrEqual(memory.daysAgo);
    }
    expect(new Set(memories.map((memory) => memory.daysAgo)).size).toBeGreaterThan(100);
    expect(new Set(memories.map((memory) => memory.confidence)).size).toBeGreaterThan(10);
    expect(memories.filter((memory) => memory.reinforcedDaysAgo?.length).length).toBeGreaterThan(50);
  });

  it("is the same on every call", () => {
    expect(evaluationSet()).toEqual({ memories, queries });
  });
});

describe("the conversational evaluation set", () => {
  const set = conversationSet();
  const keys = new Set(set.memories.map((memory) => memory.key));

  it("holds at least ten long conversations between two people, 1,500 turns and 400 questions in all", () => {
    expect(conversations.length).toBeGreaterThanOrEqual(10);
    expect(set.memories.length).toBeGreaterThanOrEqual(1_500);
    expect(set.queries.length).toBeGreaterThanOrEqual(400);
    for (const conversation of conversations) {
      expect(conversation.speakers, conversation.id).toHaveLength(2);
      expect(conversation.sessions.length, conversation.id).toBeGreaterThanOrEqual(10);
      for (const turn of conversation.sessions.flatMap((session) => session.turns)) expect(conversation.speakers, turn.id).toContain(turn.speaker);
    }
  });

  it("dates its sessions in order, and has unique turn ids whose memories the API would accept", () => {
    for (const conversation of conversations) {
      const dates = conversation.sessions.map((session) => session.date);
      expect(dates.every((date) => /^\d{4}-\d{2}-\d{2}$/.test(date) && !Number.isNaN(Date.parse(date))), conversation.id).toBe(true);
      expect([...dates].sort(), conversation.id).toEqual(dates);
    }
    expect(keys.size).toBe(set.memories.length);
    for (const memory of set.memories) expect(memory.text.length).toBeLessThanOrEqual(memoryLimits.textMaxLength);
  });

  it("asks four kinds of questions, each naming turns that exist; multi-hop ones need two or more", () => {
    const counts = new Map<string, number>();
    for (const query of set.queries) {
      counts.set(query.kind, (counts.get(query.kind) ?? 0) + 1);
      expect(query.relevant.length, query.query).toBeGreaterThan(0);
      for (const key of query.relevant) expect(keys.has(key), `${query.query} -> ${key}`).toBe(true);
      if (query.kind === "multi-hop") expect(query.relevant.length, query.query).toBeGreaterThanOrEqual(2);
    }
    for (const kind of ["single-fact", "multi-hop", "temporal", "inference"]) expect(counts.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(60);
    expect(new Set(set.queries.map((query) => query.query)).size).toBe(set.queries.length);
  });

  it("is split into halves of similar size, fixed by each question's text", () => {
    const heldOut = set.queries.filter(isHeldOut).length;
    expect(heldOut / set.queries.length).toBeGreaterThan(0.4);
    expect(heldOut / set.queries.length).toBeLessThan(0.6);
  });
});

import { describe, expect, it } from "vitest";
import { analyzeText } from "../src/analyze";
import { FEEDBACK_TERMS, feedbackSources, feedbackTerms, withFeedback } from "../src/feedback";
import { type CollectionStats, countTerms, type LexicalDocument, rankLexically } from "../src/lexical";
import { analyzeQuery, conceptTerms } from "../src/query";

const analysed = (id: string, text: string): LexicalDocument => ({ id, terms: countTerms(analyzeText(text)), subjectTerms: countTerms([]) });

function statsOf(documents: readonly LexicalDocument[]): CollectionStats {
  const documentFrequency = new Map<string, number>();
  for (const doc of documents) for (const term of doc.terms.counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const averageLength = documents.reduce((sum, doc) => sum + doc.terms.length, 0) / documents.length;
  return { documents: documents.length, averageLength, documentFrequency };
}

const vpnOld = analysed("vpn-old", "Access to internal tools goes through the OpenVPN server.");
const vpnNew = analysed("vpn-new", "OpenVPN was replaced by Tailscale: install the client to connect.");
const projector = analysed("projector", "Connect the projector with the HDMI cable.");
const lunch = analysed("lunch", "Lunch is served at noon on the terrace.");
const documents = [vpnOld, vpnNew, projector, lunch];
const stats = statsOf(documents);

function ranked(query: string) {
  const concepts = analyzeQuery(query);
  const queryTerms = conceptTerms(concepts, { synonyms: true });
  const matches = rankLexically(concepts, documents, stats);
  return { queryTerms, matches, withFeedback: withFeedback(queryTerms, matches, documents, stats) };
}

describe("pseudo-relevance feedback", () => {
  it("draws on the best matches' words that the query lacks and another memory holds", () => {
    const { queryTerms, matches } = ranked("how do I connect to internal tools?");
    expect(feedbackSources(matches, documents)[0]!.id).toBe("vpn-old");
    const terms = feedbackTerms(queryTerms, matches, documents, stats);
    expect(terms).toContain("openvpn");
    // `server` and `access` are in the best match alone: they can lift no other memory.
    expect(terms).not.toContain("server");
    expect(terms).not.toContain("access");
    for (const term of queryTerms) expect(terms).not.toContain(term);
    expect(terms.length).toBeLessThanOrEqual(FEEDBACK_TERMS);
  });

  it("lifts the memory that shares the best match's telling words above an equal match", () => {
    const { matches, withFeedback: fed } = ranked("how do I connect to internal tools?");
    const position = (list: Array<{ id: string }>, id: string) => list.findIndex((match) => match.id === id);
    // By the query alone, the shorter projector memory matches `connect` better.
    expect(position(matches, "projector")).toBeLessThan(position(matches, "vpn-new"));
    expect(fed.map((match) => match.id)).toEqual(["vpn-old", "vpn-new", "projector"]);
  });

  it("keeps every match of the query and ranks only the documents given", () => {
    const { matches, withFeedback: fed } = ranked("connect");
    const ids = fed.map((match) => match.id);
    for (const match of matches) expect(ids).toContain(match.id);
    // The OpenVPN memory lacks the query's word but shares `openvpn` with a match; lunch shares nothing.
    expect(ids).toContain("vpn-old");
    expect(ids).not.toContain("lunch");
    expect(ranked("kubernetes").withFeedback).toEqual([]);
  });

  it("leaves the ranking alone when the best matches share no word with another memory", () => {
    const { matches, withFeedback: fed } = ranked("lunch");
    expect(fed.map((match) => match.id)).toEqual(matches.map((match) => match.id));
  });
});

/**
 * The conversational evaluation set: long, multi-session chats between two people, each turn encoded as one
 * memory (speaker and text, at its session's date), as a chat application would remember them. Questions
 * name the turns that answer them. Written without looking at the engine, as a blind test.
 */

/** One message of a session. `id` is unique within its conversation, e.g. "s3-t12". */
export interface Turn {
  id: string;
  /** One of the conversation's two speakers, by first name. */
  speaker: string;
  text: string;
}

export interface Session {
  /** e.g. "s3". */
  id: string;
  /** The day the session took place, `YYYY-MM-DD`; relative time in its turns ("last weekend") is relative to it. */
  date: string;
  turns: Turn[];
}

/**
 * - `single-fact`: answered by one turn.
 * - `multi-hop`: needs two or more turns, usually from different sessions ("what does Maria's brother do?"
 *   when one turn names the brother and another, later, says what he does).
 * - `temporal`: when something happened, before or after what, how long ago; the evidence turns often say it
 *   relative to their session's date ("we moved last weekend" in a session of 14 May).
 * - `inference`: what the person would likely do, enjoy or think, from what they said (the evidence turns
 *   are the ones that support the inference).
 */
export type ConversationQuestionKind = "single-fact" | "multi-hop" | "temporal" | "inference";

export interface ConversationQuestion {
  question: string;
  kind: ConversationQuestionKind;
  /** Ids of the turns that answer it (every one is needed or directly supports the answer). */
  evidence: string[];
  /** The answer in a few words, for the reader of a miss. */
  answer: string;
}

export interface Conversation {
  /** Short, lower-case, e.g. "maria-jon". */
  id: string;
  speakers: [string, string];
  sessions: Session[];
  questions: ConversationQuestion[];
}

import type { TCapabilityEntry, TCapabilityScope, TConfigField, TTier } from "@engram/contract";

/** One capability an assistant may be given: the registry entry, with its config fields typed. */
export interface CapabilityDefinition {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly scope: TCapabilityScope;
  readonly requiresConfig: boolean;
  /** Every field must be supplied when requiresConfig is true; empty otherwise. */
  readonly configFields: readonly TConfigField[];
  /** The lowest organization tier that may enable it. */
  readonly tierRequirement: TTier;
  readonly alwaysEnabled: boolean;
  /**
   * True only for what Engram's own chat gateway carries out. The rest is metadata: the caller's application
   * reads an assistant's capabilities and decides what to do with them.
   */
  readonly executedByEngram: boolean;
}

/** Every assistant can answer questions: it is added when omitted and counts toward the tier's limit. */
export const ALWAYS_ENABLED_CAPABILITY = "answer_questions";

const none = { requiresConfig: false, configFields: [] } as const;

/** The registry in display order: grouped by category, the most useful first within each. */
export const capabilityRegistry: readonly CapabilityDefinition[] = [
  // Knowledge
  {
    id: ALWAYS_ENABLED_CAPABILITY,
    name: "Answer questions",
    description: "Answers questions in chat from what the organization has remembered.",
    category: "Knowledge",
    scope: "both",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: true,
    executedByEngram: true,
  },
  {
    id: "search_memory",
    name: "Search memory",
    description: "Searches the organization's memory for what bears on each message before answering.",
    category: "Knowledge",
    scope: "both",
    requiresConfig: true,
    configFields: [{ name: "maxMemories", type: "integer", description: "How many memories one chat answer may draw on.", min: 1, max: 20 }],
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: true,
  },
  {
    id: "cite_sources",
    name: "Cite sources",
    description: "Names the memories an answer drew on, so people can check it.",
    category: "Knowledge",
    scope: "both",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: true,
  },
  {
    id: "summarize_documents",
    name: "Summarize documents",
    description: "Condenses long documents, specs and policies into their key points.",
    category: "Knowledge",
    scope: "both",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "onboard_new_hires",
    name: "Onboard new hires",
    description: "Walks new colleagues through how the organization works and who to ask.",
    category: "Knowledge",
    scope: "organization",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  // Communication
  {
    id: "draft_messages",
    name: "Draft messages",
    description: "Drafts emails and chat messages in the member's own voice for them to send.",
    category: "Communication",
    scope: "user",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "summarize_threads",
    name: "Summarize threads",
    description: "Sums up long chat and email threads: what was decided, what is still open.",
    category: "Communication",
    scope: "both",
    requiresConfig: true,
    configFields: [{ name: "maxMessages", type: "integer", description: "How many recent messages of a thread to read.", min: 10, max: 500 }],
    tierRequirement: "spark",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "translate_messages",
    name: "Translate messages",
    description: "Translates messages and documents between the organization's working languages.",
    category: "Communication",
    scope: "both",
    requiresConfig: true,
    configFields: [
      { name: "targetLanguages", type: "string_list", description: "Language tags to translate into, such as de or pt-BR.", maxItems: 10, maxItemLength: 16 },
    ],
    tierRequirement: "spark",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "post_announcements",
    name: "Post announcements",
    description: "Writes and posts announcements to the organization's channels.",
    category: "Communication",
    scope: "organization",
    requiresConfig: true,
    configFields: [
      { name: "channels", type: "string_list", description: "Channels it may post to.", maxItems: 20, maxItemLength: 80 },
      { name: "requireApproval", type: "boolean", description: "Whether a person approves each announcement first." },
    ],
    tierRequirement: "seed",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  // Productivity
  {
    id: "track_tasks",
    name: "Track tasks",
    description: "Keeps the member's to-do list and reminds them of what is due.",
    category: "Productivity",
    scope: "user",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "take_meeting_notes",
    name: "Take meeting notes",
    description: "Turns meeting transcripts into notes with decisions and action items.",
    category: "Productivity",
    scope: "both",
    ...none,
    tierRequirement: "spark",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "schedule_meetings",
    name: "Schedule meetings",
    description: "Finds times that suit everyone and sends the invitations.",
    category: "Productivity",
    scope: "user",
    requiresConfig: true,
    configFields: [
      { name: "maxMeetingMinutes", type: "integer", description: "The longest meeting it may book, in minutes.", min: 15, max: 240 },
      { name: "addVideoLink", type: "boolean", description: "Whether invitations carry a video-call link." },
    ],
    tierRequirement: "seed",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "daily_briefing",
    name: "Daily briefing",
    description: "Sends the member a morning summary of meetings, open tasks and news that concerns them.",
    category: "Productivity",
    scope: "user",
    requiresConfig: true,
    configFields: [
      { name: "sendAtHour", type: "integer", description: "The hour of the day, 0 to 23 in the member's time zone, to send it.", min: 0, max: 23 },
      { name: "includeCalendar", type: "boolean", description: "Whether the briefing lists the day's meetings." },
    ],
    tierRequirement: "rise",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  // Engineering
  {
    id: "explain_code",
    name: "Explain code",
    description: "Explains what a piece of code does and why, in plain language.",
    category: "Engineering",
    scope: "both",
    ...none,
    tierRequirement: "spark",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "summarize_incidents",
    name: "Summarize incidents",
    description: "Writes incident timelines and post-incident summaries from what was recorded.",
    category: "Engineering",
    scope: "organization",
    ...none,
    tierRequirement: "seed",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "review_pull_requests",
    name: "Review pull requests",
    description: "Comments on pull requests with the team's conventions and past decisions in mind.",
    category: "Engineering",
    scope: "organization",
    requiresConfig: true,
    configFields: [
      { name: "repositories", type: "string_list", description: "Repositories it reviews, as owner/name.", maxItems: 50, maxItemLength: 140 },
      { name: "maxFilesPerReview", type: "integer", description: "Pull requests touching more files are skipped.", min: 1, max: 200 },
    ],
    tierRequirement: "rise",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "triage_alerts",
    name: "Triage alerts",
    description: "Groups monitoring alerts, links them to past incidents and suggests who should look.",
    category: "Engineering",
    scope: "organization",
    requiresConfig: true,
    configFields: [
      { name: "services", type: "string_list", description: "Services whose alerts it triages.", maxItems: 50, maxItemLength: 80 },
      { name: "autoAcknowledge", type: "boolean", description: "Whether it acknowledges alerts it recognizes as known noise." },
    ],
    tierRequirement: "boost",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  // Support
  {
    id: "route_requests",
    name: "Route requests",
    description: "Sends internal help requests to the team that owns them.",
    category: "Support",
    scope: "organization",
    ...none,
    tierRequirement: "free",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "draft_ticket_replies",
    name: "Draft ticket replies",
    description: "Drafts replies to customer tickets for an agent to review and send.",
    category: "Support",
    scope: "organization",
    requiresConfig: true,
    configFields: [
      { name: "queues", type: "string_list", description: "Ticket queues it drafts replies for.", maxItems: 20, maxItemLength: 80 },
      { name: "maxDraftsPerHour", type: "integer", description: "How many drafts it may write per hour.", min: 1, max: 500 },
    ],
    tierRequirement: "rise",
    alwaysEnabled: false,
    executedByEngram: false,
  },
  {
    id: "escalate_tickets",
    name: "Escalate tickets",
    description: "Escalates customer tickets that wait too long or match known serious problems.",
    category: "Support",
    scope: "organization",
    requiresConfig: true,
    configFields: [
      { name: "escalateAfterMinutes", type: "integer", description: "How long a ticket may wait unanswered.", min: 5, max: 1440 },
      { name: "notifyOnCall", type: "boolean", description: "Whether the on-call person is paged as well." },
    ],
    tierRequirement: "boost",
    alwaysEnabled: false,
    executedByEngram: false,
  },
];

const byId = new Map(capabilityRegistry.map((definition) => [definition.id, definition]));

/** A Map, so ids such as `__proto__` or `constructor` are simply unknown. */
export function findCapability(id: string): CapabilityDefinition | undefined {
  return byId.get(id);
}

/** The public registry entry: exactly its documented fields, config fields as names. */
export function toRegistryEntry(definition: CapabilityDefinition): TCapabilityEntry {
  return {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    category: definition.category,
    scope: definition.scope,
    requiresConfig: definition.requiresConfig,
    configFields: definition.configFields.map((field) => field.name),
    tierRequirement: definition.tierRequirement,
    alwaysEnabled: definition.alwaysEnabled,
  };
}

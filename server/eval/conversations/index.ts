/** The conversational evaluation set: twelve long chats between two people each (see ./types.ts). */
import type { Conversation } from "./types";
import { conversation as c01 } from "./c01-maria-jon";
import { conversation as c02 } from "./c02-priya-dev";
import { conversation as c03 } from "./c03-hannah-luis";
import { conversation as c04 } from "./c04-aiko-ben";
import { conversation as c05 } from "./c05-grace-omar";
import { conversation as c06 } from "./c06-sofia-mateo";
import { conversation as c07 } from "./c07-ruth-kwame";
import { conversation as c08 } from "./c08-elena-sam";
import { conversation as c09 } from "./c09-nina-felix";
import { conversation as c10 } from "./c10-chloe-marcus";
import { conversation as c11 } from "./c11-yusuf-ingrid";
import { conversation as c12 } from "./c12-tom-leah";

export type { Conversation, ConversationQuestion, ConversationQuestionKind, Session, Turn } from "./types";

export const conversations: Conversation[] = [c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12];

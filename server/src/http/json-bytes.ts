import { type BodyProblem, MAX_BODY_DEPTH, MAX_BODY_VALUES, tooDeep, TOO_MANY_VALUES } from "./input-checks";

const [QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [0x22, 0x5c, 0x2c, 0x5b, 0x7b, 0x5d, 0x7d];

/** A JSON string's text decoded, or null when it is not valid JSON (the parse will say so). */
function decodedString(json: Buffer, start: number, end: number): string | null {
  try {
    return JSON.parse(json.toString("utf8", start, end)) as string;
  } catch {
    return null;
  }
}

/**
 * What a JSON body's bytes show before JSON.parse spends tens of milliseconds on them (a mebibyte of 60,000 keys,
 * or of half a million nested lists, takes 50-300 ms): more commas outside strings than MAX_BODY_VALUES, or nesting
 * past MAX_BODY_DEPTH, named by the top-level field as the check after parsing names it. A container of n members
 * holds n - 1 commas, so past the first bound a body holds more fields and list items as sent (a repeated key counts
 * each time) than any route takes. One pass over the bytes, each looked at once; UTF-8 continuation bytes are never
 * a quote, a backslash, a comma or a bracket. Text that is not JSON is left to the parse, unless a bound is
 * crossed first.
 */
export function jsonBytesProblem(json: Buffer): BodyProblem | null {
  let commas = 0;
  let depth = 0;
  let rootIsList = false;
  // The top level's position: its list index, or the byte range of its last string (the key, when a value follows).
  let topIndex = 0;
  let topStringStart = -1;
  let topStringEnd = -1;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (byte === QUOTE) {
      const start = i;
      for (i++; i < json.length && json[i] !== QUOTE; i++) if (json[i] === BACKSLASH) i++;
      if (depth === 1) [topStringStart, topStringEnd] = [start, i + 1];
    } else if (byte === COMMA) {
      if (++commas > MAX_BODY_VALUES) return TOO_MANY_VALUES;
      if (depth === 1) topIndex++;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (depth === 0) rootIsList = byte === OPEN_ARRAY;
      // The root is at depth 0 after parsing, and one level in here.
      if (++depth > MAX_BODY_DEPTH + 1) {
        const field = rootIsList ? String(topIndex) : topStringStart < 0 ? null : decodedString(json, topStringStart, topStringEnd);
        return field === null ? null : tooDeep(field);
      }
    } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && --depth < 0) {
      return null;
    }
  }
  return null;
}

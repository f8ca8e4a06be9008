/** The most of a field's name an error repeats: a client's key of a mebibyte is named by its start. */
const MAX_NAMED_LENGTH = 200;

/** A field's name (or dotted path) as an error repeats it: whole, or its first MAX_NAMED_LENGTH characters and `…`. */
export const named = (name: string): string => (name.length > MAX_NAMED_LENGTH ? `${name.slice(0, MAX_NAMED_LENGTH)}…` : name);

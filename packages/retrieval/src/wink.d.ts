/** The package ships no types: one function from a lower-case English word to its Porter2 stem. */
declare module "wink-porter2-stemmer" {
  export default function stem(word: string): string;
}

/** Irregular English verb forms ("kept", "written") to their base form; the package ships no types. */
declare module "wink-lexicon/src/irregular-verbs.js" {
  const irregularVerbs: Readonly<Record<string, string | undefined>>;
  export default irregularVerbs;
}

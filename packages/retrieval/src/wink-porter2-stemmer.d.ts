/** The package ships no types: one function from a lower-case English word to its Porter2 stem. */
declare module "wink-porter2-stemmer" {
  export default function stem(word: string): string;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const number = new Intl.NumberFormat();

export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : "—");
export const formatNumber = (value: number) => number.format(value);
export const formatScore = (score: number | null) => (score === null ? "—" : score.toFixed(3));
export const formatPercent = (share: number) => `${Math.round(share * 100)}%`;
/** Names whose letters are read one by one. */
const initialisms: Record<string, string> = { ci: "CI", api: "API", pr: "PR" };

/** "pull_request" → "Pull request", "ci" → "CI". */
export const humanize = (name: string) => {
  const words = name
    .replace(/[_.-]+/g, " ")
    .trim()
    .split(" ")
    .map((word) => initialisms[word] ?? word)
    .join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** "1 candidate", "3 candidates". */
export const countOf = (count: number, noun: string) => `${formatNumber(count)} ${noun}${count === 1 ? "" : "s"}`;

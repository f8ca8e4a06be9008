const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const number = new Intl.NumberFormat();

export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : "—");
export const formatNumber = (value: number) => number.format(value);
export const formatScore = (score: number | null) => (score === null ? "—" : score.toFixed(3));
export const formatPercent = (share: number) => `${Math.round(share * 100)}%`;
/** "pull_request" → "Pull request". */
export const humanize = (name: string) => {
  const words = name.replace(/[_.-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

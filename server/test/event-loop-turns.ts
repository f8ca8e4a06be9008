/**
 * Counts the event loop's turns from now until `stop` is called, by a callback queued for each next turn: work
 * that gives the loop a turn between its steps lets the count grow while it runs.
 */
export function countTurns(): { stop(): number } {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    stop() {
      counting = false;
      return turns;
    },
  };
}

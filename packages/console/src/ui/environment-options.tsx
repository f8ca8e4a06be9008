import { environments } from "../session/session";
import { humanize } from "./format";

/** The three environments as a select's options, in order: Test, Staging, Production. */
export function EnvironmentOptions() {
  return environments.map((name) => (
    <option key={name} value={name}>
      {humanize(name)}
    </option>
  ));
}

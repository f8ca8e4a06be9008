import { Link } from "react-router";
import { Page } from "../ui/page";

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>
        There is no page here. <Link to="/">Go to the overview</Link>.
      </p>
    </Page>
  );
}

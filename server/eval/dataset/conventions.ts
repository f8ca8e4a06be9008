/**
 * Conventions and team preferences: how code is written, reviewed and merged, how incidents are run,
 * what is allowed in production.
 */
import { Part } from "./types";

export function conventionsPart(): Part {
  const p = new Part("conv");

  p.about("git");
  p.preference("commits", "Commit messages follow Conventional Commits (feat:, fix:, chore: …); the changelogs of the public SDKs are generated from them.", { r: [100, 40] });
  p.preference("branches", "Branch names start with the Linear issue key and a short description, e.g. BILL-1432-proration-rounding; Linear then links the PR automatically.");
  p.preference("pr-size", "Keep pull requests under roughly 400 changed lines. Bigger changes are split, or come with a link to a design doc.");
  p.preference("review-time", "Reviews are expected within one working day; if a PR waits longer, ping the team channel rather than the reviewer directly.");
  p.preference("squash", "We squash-merge pull requests; the PR title becomes the commit message, so it has to follow Conventional Commits too.");
  p.preference("renovate", "Renovate opens dependency update PRs on Mondays. Patch updates automerge when CI passes; major versions need a human review.");

  p.about("code style");
  p.preference("logging", "Logs are JSON with service, trace_id and workspace_id fields. Never log card numbers, tokens or full email addresses; mask emails like j***@example.com.", { c: 0.95, r: [80] });
  p.preference("error-codes", "Internal error codes are SCREAMING_SNAKE_CASE, prefixed with the domain (BILLING_PLAN_NOT_FOUND), and listed in each service's errors.yaml.");
  p.preference("env-vars", "Environment variables are UPPER_SNAKE_CASE and prefixed with the service name, for example BILLING_API_DB_POOL_SIZE.");
  p.preference("kotlin", "Kotlin code is formatted with ktlint (official style) and checked by Detekt in CI.");
  p.preference("go", "Go services use golangci-lint with the shared config from tallyfox/go-common; errors are wrapped with %w and never both logged and returned.");
  p.preference("typescript", "TypeScript services use strict mode, ESM and pnpm, with Biome for linting and formatting.");
  p.preference("python", "Python services use uv for dependencies, ruff for lint and format, and mypy --strict on new modules.");
  p.preference("tests", "Integration tests run against a real Postgres started by Testcontainers; mocking the database is discouraged.", { r: [120] });
  p.preference("api-casing", "Public API JSON fields are snake_case; the TypeScript SDK converts them to camelCase.");
  p.preference("pagination", "Public API list endpoints use cursor pagination (starting_after / ending_before) with a limit of at most 100.");
  p.preference("api-dates", "The public API sends dates as ISO 8601 strings in UTC, and amounts as integers in minor units next to a currency field.");
  p.preference("service-names", "New services get lowercase kebab-case names that say what they do (invoice-renderer), no team names or codenames.");
  p.preference("readme", "Every service README covers what it does, the owner, how to run it locally, its dashboards and a link to the runbook.");
  p.preference("migrations", "Database migrations must be backward compatible with the previous release (expand, then contract), because old pods keep running during a rollout.", { c: 0.9, r: [70, 25] });
  p.preference("i18n", "Customer-facing text is translated through Lokalise; don't hardcode strings in customer-portal.");
  p.preference("flag-names", "Unleash flag names are <team>.<feature>-<yyyy-mm>, e.g. growth.new-signup-2026-09, so stale flags are easy to spot.", { d: 40 });

  p.about("incidents");
  p.procedure("declare", "Anyone can declare an incident by typing /incident in Slack. That creates an #inc-<number> channel and pages the incident commander on duty.", { c: 0.95, r: [60, 14] });
  p.fact("severity", "Sev1: customers can't pay or log in, or data is exposed. Sev2: a major feature is broken for many customers. Sev3: degraded, with a workaround.", { c: 0.95 });
  p.procedure("postmortems", "Postmortems are blameless, due within 5 working days for sev1 and sev2, and reviewed in the Thursday reliability review.");
  p.fact("time-off", "On-call engineers get a day off in lieu after a week with more than 3 out-of-hours pages.");
  p.procedure("status-updates", "During a sev1 the incident commander updates status.tallyfox.com every 30 minutes, and customer success emails affected enterprise customers.");

  p.about("production access");
  p.procedure("backfills", "Backfills over 1 million rows run as scheduler jobs in batches, never from a laptop, and are announced in #eng-announce beforehand.");
  p.procedure("prod-access", "Production database access is read-only through the Teleport bastion and limited to 8 hours; write access needs an incident or a change ticket.", { c: 0.9, r: [30] });
  p.preference("staging-data", "Staging data is anonymized. Never copy production data to staging or to a laptop.");

  p.about("team preferences");
  p.preference("billing-pairing", "Billing Core prefers to pair on anything touching invoice numbering or proration.", { s: "Billing Core" });
  p.preference("data-dbt-tests", "The Data team wants every new dbt model to have unique and not_null tests on its primary key.", { s: "Data team" });
  p.preference("mobile-schema", "Mobile asks backend teams to announce GraphQL schema changes in #mobile-api at least a week ahead.", { s: "Mobile" });
  p.preference("payments-month-end", "Payments doesn't deploy on the last and first business day of a month, because of month-end settlement.", { s: "Payments team" });
  p.preference("growth-focus", "Growth keeps Wednesdays free of meetings as a focus day.", { s: "Growth" });
  p.preference("platform-requests", "Platform takes requests through the #platform-requests channel with the request form, not through DMs; urgent production issues go through PagerDuty.", { s: "Platform" });
  p.preference("identity-reviews", "Identity wants a security champion's review on any change to login, session or token handling.", { s: "Identity" });
  p.preference("data-questions", "The Data team answers ad-hoc data questions in #data-help on a best-effort basis; recurring reports should become a Metabase dashboard.", { s: "Data team" });

  p.ask("paraphrase", "how should I word my commit messages?", "commits");
  p.ask("paraphrase", "what should I call my git branch?", "branches");
  p.ask("paraphrase", "how quickly am I expected to review a teammate's pull request?", "review-time");
  p.ask("synonym", "can I print a customer's email address in the logs?", "logging");
  p.ask("camel-case", "naming convention for env vars", "env-vars");
  p.ask("synonym", "are mocks ok for the db in integration tests?", "tests");
  p.ask("direct", "json field casing in the public api", "api-casing");
  p.ask("paraphrase", "which day does the growth team avoid meetings?", "growth-focus");
  p.ask("word-form", "how do I declare an incident?", "declare");
  p.ask("paraphrase", "what counts as a sev1?", "severity");
  p.ask("paraphrase", "do I get time off after a rough week of being paged at night?", "time-off");
  p.ask("common-words", "is it ok if I just run the backfill script from my laptop against the database?", "backfills");
  p.ask("synonym", "how do I get write access to the prod db?", "prod-access");
  p.ask("paraphrase", "when can payments ship changes around the end of the month?", "payments-month-end");
  p.ask("paraphrase", "how big can a pull request be?", "pr-size");
  p.ask("word-form", "do we merge with merge commits or squashing?", "squash");
  p.ask("paraphrase", "can I drop a column in the same release that stops using it?", "migrations");
  p.ask("direct", "golang error wrapping convention", "go");
  p.ask("paraphrase", "which linter and formatter for typescript?", "typescript");
  p.ask("paraphrase", "what's the package manager for python services?", "python");
  p.ask("direct", "how do list endpoints paginate in the public API?", "pagination");
  p.ask("paraphrase", "how often do we post status page updates in a major incident?", "status-updates");
  p.ask("paraphrase", "can I load a copy of production data onto my machine to debug?", "staging-data");
  p.ask("paraphrase", "how do I ask the platform team for something?", "platform-requests");
  p.ask("word-form", "naming a new feature flag", "flag-names");
  p.ask("paraphrase", "deadline for writing the postmortem", "postmortems");
  p.ask("multi-fact", "rules for deploying payments-gateway around a friday or the end of the month", ["payments-month-end", "dec:freeze-new", "svc:payments-gateway/deploy"]);

  return p;
}

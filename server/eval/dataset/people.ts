/**
 * People, their roles and responsibilities, and the small preferences colleagues write down about each other.
 */
import { Part } from "./types";

export function peoplePart(): Part {
  const p = new Part("ppl");

  const person = (name: string, text: string, options: { d?: number; c?: number; r?: number[] } = {}) =>
    p.fact(name.toLowerCase().replace(/[^a-z]+/g, "-"), text, { s: name, ...options });

  person("Ingrid Solberg", "Ingrid Solberg is the CTO. Architecture escalations and approvals for senior engineering hires go to her.", { c: 0.95, r: [200] });
  person("Paul Mercer", "Paul Mercer, VP Engineering, runs the engineering leads meeting every Tuesday at 14:00.");
  person("Aisha Bello", "Aisha Bello is our DBA. Ask her before running anything heavy on a production Postgres database, including large backfills.", { r: [90, 30] });
  person("Yusuf Demir", "Yusuf Demir runs vulnerability management: Snyk findings with CVSS 7 or higher must be fixed within 14 days, and he tracks the exceptions.");
  person("Victor Hale", "Victor Hale is Head of Security and the contact for customer security questionnaires and penetration test reports.");
  person("Clara Jensen", "Clara Jensen is the Data Protection Officer. GDPR requests from data subjects and DPAs go to her at privacy@tallyfox.com.");
  person("Lukas Hoffmann", "Lukas Hoffmann in Finance owns vendor contracts and renewals; check with him before signing up for any paid SaaS tool.");
  person("Ben Adeyemi", "Ben Adeyemi runs IT: laptops, Okta accounts and Google Workspace. Offboarding checklists go through him too.");
  person("Grace Mwangi", "Grace Mwangi is the customer success manager for our enterprise accounts, including Acme, Globex and Initech.");
  person("Emily Park", "Emily Park is the product manager for billing: plans, proration, the dunning policy and invoice design go through her.");
  person("Julia Novak", "Julia Novak writes the public API documentation on docs.tallyfox.com; changes to the API reference need her review.");
  person("Sven Larsen", "Sven Larsen is a staff engineer and chairs the architecture review board, which meets every other Thursday.", { r: [60] });
  person("Tom Becker", "Tom Becker leads QA and signs off release candidates of the mobile apps.");
  person("Lina Petrova", "Lina Petrova owns the design system: the Figma library 'Foxglove' and the @tallyfox/ui React package.");
  person("Mehmet Aydin", "Mehmet Aydin is the Terraform expert in Platform; he wrote most modules in tallyfox/infra/modules.");
  person("Rosa Delgado", "Rosa Delgado owns the observability stack (Datadog, the OpenTelemetry collector) and the monitors-as-code repo.");
  person("Beatriz Rocha", "Beatriz Rocha leads Support Engineering and decides the priority of support escalations.");
  person("Nora Lindqvist", "Nora Lindqvist manages the Data team and owns the Snowflake budget.");
  person("Samuel Okoro", "Samuel Okoro is the engineering manager of Integrations (webhooks, imports and exports, accounting connectors).");
  person("Leah Goldberg", "Leah Goldberg manages Growth: signup, onboarding, notifications and the customer portal.");
  person("Oliver Brandt", "Oliver Brandt manages the Identity team and is the escalation point for SSO problems with enterprise customers.");
  person("Marta Silva", "Marta Silva is engineering manager of Billing Core and runs the monthly billing quality review.");
  person("Hana Sato", "Hana Sato leads Mobile and works from Tokyo; schedule meetings with her before 10:00 CET.");

  p.preference("kwame-written", "Kwame prefers design questions in writing (a Linear comment or a short doc) over ad-hoc calls.", { s: "Kwame Mensah" });
  p.preference("jonas-reviews", "Jonas Weber reviews billing-api PRs in the mornings; requests sent after 15:00 are usually picked up the next day.", { s: "Jonas Weber" });
  p.preference("ravi-dbt", "Ravi Kulkarni wants every dbt model change to come with a screenshot of the row counts before and after.", { s: "Ravi Kulkarni" });
  p.fact("sofia-timezone", "Sofia Marin works from Montreal (Eastern time), so Identity's team meeting is at 16:00 CET.", { s: "Sofia Marin" });
  p.fact("nadia-ledger", "Nadia Petrenko is the person to ask about ledger internals, reversing entries and the settlement matching code.", { s: "Nadia Petrenko" });
  p.fact("irene-parttime", "Irene Costa works Monday to Thursday; invoice-renderer questions on Fridays go to Jonas.", { s: "Irene Costa" });
  p.fact("arjun-oncall", "Arjun Mehta is the newest Payments engineer and joins the on-call rotation in December after shadowing.", { s: "Arjun Mehta" });
  p.fact("security-champions", "Each team has a security champion; for Payments it's Omar Haddad and for Identity it's Sofia Marin.", { s: "security" });
  p.fact("ic-rotation", "Incident commanders come from a separate rotation of senior engineers and EMs (the 'IC' schedule in PagerDuty), not from the on-call engineer of the affected team.", { s: "incidents", r: [50] });
  p.fact("hiring-loop", "The engineering hiring loop is a recruiter screen, a take-home or pairing exercise, a system design interview and a values interview; hiring managers decide within 48 hours.", { s: "hiring" });

  p.ask("paraphrase", "who should I check with before running a big backfill on the prod database?", "aisha-bello");
  p.ask("paraphrase", "how fast do we have to fix a high severity snyk finding?", "yusuf-demir");
  p.ask("paraphrase", "a prospect sent a security questionnaire, who fills it in?", "victor-hale");
  p.ask("synonym", "who handles GDPR requests?", "clara-jensen");
  p.ask("paraphrase", "I want to buy a license for a SaaS tool, who do I ask?", "lukas-hoffmann");
  p.ask("paraphrase", "my laptop is broken, who do I talk to?", "ben-adeyemi");
  p.ask("direct", "who is the customer success manager for Acme?", ["grace-mwangi", "cus:acme"]);
  p.ask("paraphrase", "who decides proration and dunning behaviour on the product side?", "emily-park");
  p.ask("paraphrase", "who reviews changes to the API reference docs?", "julia-novak");
  p.ask("direct", "when does the architecture review board meet?", "sven-larsen");
  p.ask("paraphrase", "who owns the react component library?", "lina-petrova");
  p.ask("paraphrase", "who wrote our terraform modules?", "mehmet-aydin");
  p.ask("paraphrase", "who is responsible for our datadog setup?", "rosa-delgado");
  p.ask("paraphrase", "who is the boss of the Integrations team?", "samuel-okoro");
  p.ask("common-words", "what is a good time of day to set up a call with the person who leads the mobile team?", "hana-sato");
  p.ask("paraphrase", "best way to ask Kwame a design question?", "kwame-written");
  p.ask("direct", "who knows the ledger settlement matching code?", "nadia-ledger");
  p.ask("common-words", "who can I ask about the invoice renderer on a friday when Irene is not around?", "irene-parttime");
  p.ask("direct", "who is the security champion for payments?", "security-champions");
  p.ask("paraphrase", "is the incident commander the same person as whoever is on call?", "ic-rotation");
  p.ask("word-form", "what are the steps of our engineering interviews?", "hiring-loop");
  p.ask("paraphrase", "who approves hiring a senior engineer?", "ingrid-solberg");

  p.ask("synonym", "who's the DBA?", ["aisha-bello", "svc:ledger/migrations-new"]);
  p.ask("synonym", "who's the PM for billing?", "emily-park");
  p.ask("synonym", "EM for identity", ["oliver-brandt", "svc:auth-service/owner"]);
  p.ask("synonym", "CSM for Globex", "grace-mwangi");
  p.ask("common-words", "who is it that I should be asking if I have a question about how much we are spending on the data warehouse?", ["nora-lindqvist", "ven:snowflake-budget"]);
  p.ask("common-words", "what is the name of the person I should go to when I want to get a new laptop?", ["ben-adeyemi", "dec:laptop-new"]);

  return p;
}

/**
 * Customers and support: account specifics, plans, support policies and the answers support keeps giving.
 */
import { Part } from "./types";

export function customersPart(): Part {
  const p = new Part("cus");

  p.fact("acme", "Acme Corp (workspace acme) is our biggest Enterprise customer: custom 99.95% SLA, invoices in USD, a Slack Connect channel #ext-acme, and Grace Mwangi as CSM.", { s: "Acme Corp", c: 0.95, r: [120, 60, 10] });
  p.fact("globex", "Globex GmbH needs its invoices in German with their purchase order number in the header; the PO is stored in the custom field po_number.", { s: "Globex" });
  p.fact("initech", "Initech pays only by SEPA direct debit; never turn on card dunning emails for them.", { s: "Initech" });
  p.fact("umbrella", "Umbrella Health is a US healthcare customer with a signed BAA, so their workspace has PHI redaction enabled in logs and exports.", { s: "Umbrella Health" });
  p.fact("stark", "Stark Logistics imports around 50,000 invoices a month via CSV; they were the reason the import size limit went up.", { s: "Stark Logistics" });
  p.fact("wayne", "Wayne Retail has a contractual EU-only data residency requirement, backups included.", { s: "Wayne Retail" });
  p.fact("soylent", "Soylent Foods is still on the legacy 2023 'Growth Legacy' plan with grandfathered pricing; don't migrate them automatically.", { s: "Soylent Foods" });
  p.fact("cyberdyne", "Cyberdyne's contract requires 30 days' notice before any breaking API change.", { s: "Cyberdyne" });
  p.fact("hooli", "Hooli logs in through SSO with Azure AD and provisions users via SCIM; their IT team opens tickets through their CSM, not Zendesk.", { s: "Hooli" });
  p.fact("vandelay", "Vandelay Industries has a custom net-60 payment term; their invoices must not trigger dunning before day 60.", { s: "Vandelay" });
  p.fact("massive-dynamic", "Massive Dynamic uses the API heavily (about 180 requests per second at peak) and has a raised rate limit of 600 requests per second on its production key.", { s: "Massive Dynamic" });
  p.fact("pied-piper", "Pied Piper is a Business-plan customer in a pilot for usage-based pricing; feedback goes to Emily Park.", { s: "Pied Piper", d: 30 });

  p.about("support");
  p.procedure("refunds", "Refunds over €5,000 need approval from Finance (Lukas Hoffmann) before support processes them in admin-console.", { c: 0.9, r: [25] });
  p.fact("support-sla", "Support response times: Enterprise within 1 business hour, Business within 8 hours, Starter within 2 business days.", { c: 0.95 });
  p.fact("plans", "Plans are Starter, Business and Enterprise. Starter has no SSO and at most 2 API keys.");
  p.fact("base-currency", "A workspace's base currency can't be changed after its first invoice is finalized; support has to create a new workspace and migrate the customer.");
  p.procedure("gdpr-delete", "When a customer asks for their account to be deleted, support files a GDPR deletion request in admin-console. Data is erased within 30 days, but invoices are kept for 10 years because of tax law.", { c: 0.9 });
  p.procedure("chargebacks", "Chargebacks and disputes are handled by Payments; support forwards Stripe and Adyen dispute notices to #payments-disputes.");
  p.procedure("logo-macro", "Support macro 'PDF missing logo': ask the customer to upload a PNG under 1 MB; SVG logos aren't supported by the PDF renderer.");
  p.procedure("email-not-received", "When a customer says an invoice email never arrived, look up the recipient in Postmark's activity first; most cases are spam filters or a typo in the address.");
  p.procedure("trial-extension", "Support can extend a trial by up to 14 days in admin-console; anything longer needs approval from Sales.");
  p.preference("status-links", "Support links customers to status.tallyfox.com during incidents instead of promising their own ETA.");
  p.fact("support-hours", "Support is staffed 08:00–20:00 CET on weekdays; Enterprise customers also have a weekend emergency line that pages the support on-call.");
  p.procedure("vat-id", "If a customer's VAT ID fails validation, support can't override it; ask the customer to check the number in VIES, or wait for VIES if it is down.");
  p.fact("api-key-rotation", "Support must never roll a customer's API key for them; they guide the workspace admin to Settings → API keys → Roll key.");
  p.fact("data-export", "Customers leaving us can export all their invoices as PDFs and data as CSV from Settings → Export; support shouldn't build exports by hand.");

  p.ask("paraphrase", "what language do the invoices for Globex have to be in?", "globex");
  p.ask("paraphrase", "can we enable card payment reminder emails for Initech?", "initech");
  p.ask("paraphrase", "which customer has a healthcare agreement with PHI requirements?", "umbrella");
  p.ask("paraphrase", "which customer needs all data and backups kept in the EU?", "wayne");
  p.ask("paraphrase", "should we move soylent to the new pricing?", "soylent");
  p.ask("paraphrase", "how much notice do we owe Cyberdyne before breaking the API?", "cyberdyne");
  p.ask("paraphrase", "when should dunning kick in for Vandelay's invoices?", "vandelay");
  p.ask("direct", "Massive Dynamic rate limit", "massive-dynamic");
  p.ask("paraphrase", "how big a refund can support approve on its own?", "refunds");
  p.ask("paraphrase", "how quickly do we have to answer an enterprise support ticket?", "support-sla");
  p.ask("paraphrase", "does the cheapest plan include single sign-on?", "plans");
  p.ask("paraphrase", "can a customer switch their account to a different currency?", "base-currency");
  p.ask("common-words", "a customer wants us to delete their account and everything we have about them, what do we do?", "gdpr-delete");
  p.ask("word-form", "forwarding dispute notices from the card networks", "chargebacks");
  p.ask("paraphrase", "customer's logo is not showing on their invoice pdf", "logo-macro");
  p.ask("common-words", "the customer says they never got the email with their invoice, where do I start looking?", "email-not-received");
  p.ask("paraphrase", "can support give a customer more time on their trial?", "trial-extension");
  p.ask("paraphrase", "is support available at weekends?", "support-hours");
  p.ask("paraphrase", "customer's tax number is rejected as invalid, can support force it through?", "vat-id");
  p.ask("paraphrase", "customer asks us to regenerate their API key for them", "api-key-rotation");
  p.ask("paraphrase", "which customer is piloting usage based pricing?", "pied-piper");
  p.ask("paraphrase", "who logs in with Azure AD and uses SCIM?", "hooli");
  p.ask("paraphrase", "which customer uploads tens of thousands of invoices via CSV each month?", "stark");
  p.ask("paraphrase", "a churning customer wants all their data, what do we tell them?", "data-export");

  p.ask("direct", "what SLA does Acme have?", "acme");
  p.ask("word-form", "who is approving refunds above 5000 euros?", "refunds");

  return p;
}

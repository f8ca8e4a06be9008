/**
 * Incidents as the organization remembers them: ticket ids, symptoms, error codes, versions, causes and
 * follow-ups, with many incidents per service so that a question about one meets several similar ones.
 */
import { Part } from "./types";

export function incidentsPart(): Part {
  const p = new Part("inc");
  p.event("INC-2041", "INC-2041: card payments failed for 38 minutes because the Adyen client certificate had expired. Mehmet Aydin renewed it and we added a Datadog monitor that warns 30 days before expiry.", { s: "INC-2041", d: 330, c: 0.9 });
  p.event("INC-2058", "INC-2058: invoice PDFs came out as blank pages after invoice-renderer v4.8.0 upgraded Chromium to 118. Rolled back to v4.7.3 and pinned the Chromium version.", { s: "INC-2058", d: 315 });
  p.event("INC-2077", "INC-2077: billing-api ran out of database connections (HikariPool connection timeout) during month-end invoice generation. The pool was raised from 20 to 40 and the invoice run now works in batches of 500.", { s: "INC-2077", d: 300, r: [240] });
  p.event("INC-2093", "INC-2093: users got logged out every few minutes because two auth-service pods were signing with different JWT keys after a half-finished key rotation.", { s: "INC-2093", d: 290 });
  p.event("INC-2110", "INC-2110: webhook deliveries were up to 2 hours late because one customer's endpoint took 30 seconds to answer and tied up the whole worker pool. Per-endpoint concurrency limits were added to webhook-dispatcher.", { s: "INC-2110", d: 270 });
  p.event("INC-2124", "INC-2124: nightly reconciliation raised LEDGER_IMBALANCE for €12,400 because an Adyen settlement report was imported twice. Settlement imports are now idempotent by report id.", { s: "INC-2124", d: 260 });
  p.event("INC-2139", "INC-2139: about 1,900 customers got the same payment reminder email twice: dunning-worker's SQS visibility timeout (30 s) was shorter than the time it took to process a job. Raised to 5 minutes.", { s: "INC-2139", d: 250 });
  p.event("INC-2150", "INC-2150: for 6 hours invoices to Canadian customers were created without GST after Avalara changed a tax code mapping; 212 invoices had to be reissued.", { s: "INC-2150", d: 240 });
  p.event("INC-2166", "INC-2166: the public API returned 502s for 12 minutes after upgrading Kong to 3.4, which changed the default upstream keepalive. We went back to Kong 3.3.", { s: "INC-2166", d: 230 });
  p.event("INC-2171", "INC-2171: customer-portal rendered a blank page in Safari 15.3 and older because a new dependency used Array.prototype.findLast. Fixed by adding the polyfill and a browserslist check in CI.", { s: "INC-2171", d: 225 });
  p.event("INC-2185", "INC-2185: 41 customers were billed twice for metered usage after a Kafka consumer group reset replayed three days of usage.events.v2. Corrected invoices went out and the dedupe window was raised from 24 to 48 hours.", { s: "INC-2185", d: 215 });
  p.event("INC-2197", "INC-2197: SSO logins failed for every Okta customer after our SAML signing certificate expired. Sofia Marin uploaded a new certificate and customers had to refresh our metadata.", { s: "INC-2197", d: 205 });
  p.event("INC-2207", "INC-2207: some customers were charged twice because payments-gateway retried a Stripe charge after a timeout without an idempotency key. 63 refunds were issued.", { s: "INC-2207", d: 195, c: 0.95, r: [180, 150] });
  p.fact("INC-2207-pm", "Postmortem of INC-2207 (double charges), action items: send an Idempotency-Key on every Stripe call (done), alert on more than one charge per invoice (Kwame), bulk refund script in the ops toolbox (done).", { s: "INC-2207", d: 185 });
  p.event("INC-2214", "INC-2214: new invoices were missing from search for a day because the Debezium connector of search-indexer stopped after a Postgres failover; the replication slot did not move to the new primary.", { s: "INC-2214", d: 190 });
  p.event("INC-2226", "INC-2226: password reset and invoice emails bounced for half a day because SendGrid suspended our account after a spike in bounces from an imported list.", { s: "INC-2226", d: 180 });
  p.event("INC-2233", "INC-2233: GBP invoices used a three-day-old exchange rate because the ECB feed was unreachable and fx-rates silently kept serving stale rates. It now alerts when rates are older than 2 hours.", { s: "INC-2233", d: 175 });
  p.event("INC-2240", "INC-2240: big Excel exports got export-worker OOMKilled. Exports now stream rows using openpyxl's write-only mode and the memory limit went up to 2 GiB.", { s: "INC-2240", d: 168 });
  p.event("INC-2251", "INC-2251: a customer's CSV import created 4,000 duplicate customers because the import was retried after a timeout. Imports now carry an import_id and duplicates are skipped.", { s: "INC-2251", d: 160 });
  p.event("INC-2263", "INC-2263: billing-api v3.38.0 computed wrong proration for mid-period downgrades (it rounded per day instead of per second). Fixed in v3.38.2.", { s: "INC-2263", d: 150 });
  p.event("INC-2270", "INC-2270: nightly jobs ran an hour late after the daylight saving change because one job was declared in Europe/Berlin time. scheduler now rejects non-UTC schedules.", { s: "INC-2270", d: 140 });
  p.event("INC-2282", "INC-2282: Xero syncs failed with HTTP 429 for a day: we exceeded Xero's limit of 60 calls per minute per tenant. accounting-sync now batches invoices.", { s: "INC-2282", d: 130 });
  p.event("INC-2290", "INC-2290: every API key was throttled to zero for 9 minutes when rl-redis-prod failed over and rate-limiter treated the missing buckets as empty. It fails open now.", { s: "INC-2290", d: 120 });
  p.event("INC-2301", "INC-2301: ledger writes stalled for 20 minutes during a migration that created an index on journal_entries without CONCURRENTLY. Migrations on big tables must use CREATE INDEX CONCURRENTLY.", { s: "INC-2301", d: 110, r: [60] });
  p.event("INC-2309", "INC-2309: logins took up to 8 seconds after auth-service v2.19.0 raised the bcrypt cost to 14; we reverted to cost 12.", { s: "INC-2309", d: 100 });
  p.event("INC-2315", "INC-2315: the 14:00 payout batch didn't run because its scheduler job had been paused for a migration and nobody resumed it; payouts went out 3 hours late.", { s: "INC-2315", d: 95 });
  p.event("INC-2322", "INC-2322: German invoices showed broken umlauts (ä printed as Ã¤) in invoice-renderer v4.12.0 after a font subsetting change; fixed in v4.12.1.", { s: "INC-2322", d: 88 });
  p.event("INC-2330", "INC-2330: the iOS app crashed on launch for users of app version 5.2 because mobile-bff removed the deprecated field invoice.totalCents. The field was restored.", { s: "INC-2330", d: 80 });
  p.event("INC-2337", "INC-2337: for 40 minutes webhooks went out with invalid signatures after a config change put the wrong secret version in production; customer endpoints rejected them with 401.", { s: "INC-2337", d: 72 });
  p.event("INC-2344", "INC-2344: billing-api pods crash-looped with OutOfMemoryError after the v3.41.0 release (a plan catalog cache without a size limit). Rolled back to v3.40.4.", { s: "INC-2344", d: 65 });
  p.fact("INC-2344-followup", "Follow-up from INC-2344: every in-memory cache in billing-api must have a maximum size; Jonas added a Detekt rule that flags unbounded caches.", { s: "billing-api", d: 58 });
  p.event("INC-2351", "INC-2351: EU card payments through Adyen failed 3-D Secure with error PGW-3DS-017 for 25 minutes after Adyen moved an API endpoint; payments-gateway's endpoint list was updated.", { s: "INC-2351", d: 58 });
  p.event("INC-2358", "INC-2358: customer-portal was down for 15 minutes because NEXT_PUBLIC_API_URL had been deleted from the Vercel production environment by mistake.", { s: "INC-2358", d: 50 });
  p.event("INC-2362", "INC-2362: the ClickHouse disk of usage-metering filled up and hourly aggregation stopped for 3 hours. Retention of raw events was lowered from 180 to 90 days.", { s: "INC-2362", d: 44 });
  p.event("INC-2369", "INC-2369: SMS one-time codes to India were delayed by 10 minutes or more because of carrier filtering; notification-hub now uses a registered DLT sender ID there.", { s: "INC-2369", d: 37 });
  p.event("INC-2374", "INC-2374: some customers' old Java clients failed the TLS handshake after older cipher suites were removed at the edge. ECDHE-RSA-AES128-SHA was re-enabled on api.tallyfox.com until March 2027.", { s: "INC-2374", d: 30 });
  p.event("INC-2380", "INC-2380: dunning-worker marked 300 paid subscriptions past_due because Adyen payment webhooks were delayed. Dunning now re-checks the payment status with payments-gateway before escalating.", { s: "INC-2380", d: 24 });
  p.event("INC-2386", "INC-2386: tax-engine returned TAX_PROVIDER_TIMEOUT for about 20% of requests for an hour; Avalara had a partial outage and our fallback cache was cold after a Redis restart.", { s: "INC-2386", d: 16 });
  p.event("INC-2391", "INC-2391: for 6 minutes search results showed customers from another workspace, because a reindex swapped the alias to an index built without the workspace_id filter. Security was informed and 3 customers were notified.", { s: "INC-2391", d: 9, c: 0.95 });
  p.event("INC-2395", "INC-2395: invoice numbers skipped values after a retry in billing-api; fixed in v3.44.1 by allocating the number in the same transaction as the invoice.", { s: "INC-2395", d: 5 });
  p.event("INC-2398", "INC-2398 (open): the nightly ledger reconciliation now takes over 3 hours and finished after 06:00 UTC twice this week; Nadia is profiling the settlement matching.", { s: "INC-2398", d: 2, c: 0.7 });

  // Near misses: things people also write down about incidents, which don't explain them.
  p.event("INC-2207-meeting", "The INC-2207 postmortem review moved to Thursday 15:00; Kwame will present.", { s: "INC-2207", d: 188, c: 0.6 });
  p.event("INC-2344-status", "Status page for INC-2344 was updated three times; the incident was closed after 47 minutes.", { s: "INC-2344", d: 65, c: 0.6 });
  p.event("INC-2391-comms", "Customer success sent the INC-2391 notification emails to the three affected workspaces; Clara Jensen reviewed the wording.", { s: "INC-2391", d: 8, c: 0.7 });
  p.event("INC-2301-ticket", "Linear ticket PAY-812 tracks the lint rule for non-concurrent index creation mentioned in INC-2301.", { s: "INC-2301", d: 104, c: 0.6 });
  p.event("INC-2322-support", "Support closed 27 Zendesk tickets linked to INC-2322 with the macro 'Invoice characters fixed'.", { s: "INC-2322", d: 86, c: 0.6 });
  p.event("INC-2058-note", "Someone asked whether INC-2058 could happen again on the next Chromium upgrade; Irene said the pinned version is bumped manually with a visual diff of sample invoices.", { s: "INC-2058", d: 280, c: 0.65 });
  p.event("INC-2185-credit", "Finance approved the credit notes for the customers affected by INC-2185; total €8,930.", { s: "INC-2185", d: 210, c: 0.7 });
  p.event("near-billing-oom", "billing-api staging pods were OOMKilled during a load test with 10x the normal plan catalog; no production impact, no incident declared.", { s: "billing-api", d: 70, c: 0.6 });
  p.event("near-renderer-timeout", "invoice-renderer logged Navigation timeout of 30000 ms exceeded for 14 invoices overnight; retries rendered all of them.", { s: "invoice-renderer", d: 12, c: 0.55 });
  p.event("near-adyen-cert", "Reminder from the certificate calendar: the Adyen client certificate expires in 45 days; Mehmet has the renewal ticket.", { s: "payments-gateway", d: 20, c: 0.7 });
  p.event("near-saml-cert", "The SAML signing certificate of sso-bridge was renewed ahead of time this year; customers were asked to refresh metadata two weeks before the switch.", { s: "sso-bridge", d: 40, c: 0.75 });
  p.event("near-double-email", "Marketing newsletter was sent twice to the Starter segment by a HubSpot workflow misconfiguration; not an engineering incident.", { s: "marketing", d: 33, c: 0.6 });
  p.event("near-kong-upgrade", "Kong 3.6 upgrade is planned for next cycle; Platform will test upstream keepalive settings in staging first.", { s: "api-gateway", d: 14, c: 0.6 });

  p.ask("identifier", "what happened in INC 2207", ["INC-2207", "INC-2207-pm"]);
  p.ask("identifier", "inc2077 root cause", "INC-2077");
  p.ask("paraphrase", "why were some customers' cards charged twice?", ["INC-2207", "INC-2207-pm"]);
  p.ask("multi-fact", "what caused INC-2207 and what were the action items?", ["INC-2207", "INC-2207-pm"]);
  p.ask("paraphrase", "the umlaut bug on german invoices, which release fixed it?", "INC-2322");
  p.ask("identifier", "what was broken in billing-api 3.41.0", "INC-2344");
  p.ask("identifier", "PGW-3DS-017", "INC-2351");
  p.ask("identifier", "TAX_PROVIDER_TIMEOUT errors from the tax service", "INC-2386");
  p.ask("identifier", "what does LEDGER_IMBALANCE mean", "INC-2124");
  p.ask("paraphrase", "has the payment reminder email ever been sent twice to customers?", "INC-2139");
  p.ask("paraphrase", "why were canadian invoices missing GST?", "INC-2150");
  p.ask("identifier", "kong 3.4 upgrade problem", "INC-2166");
  p.ask("paraphrase", "the portal showed a white screen on older iPhones' Safari, what was it?", "INC-2171");
  p.ask("paraphrase", "customers were double billed for usage after a kafka replay — what happened?", "INC-2185");
  p.ask("word-form", "SSO login failures for Okta customers after the certificate expiry", "INC-2197");
  p.ask("paraphrase", "why did new invoices not show up in search after the database failover?", "INC-2214");
  p.ask("common-words", "what was the story with the exchange rates being a few days old on the invoices in pounds?", "INC-2233");
  p.ask("synonym", "export worker out of memory on large excel files", "INC-2240");
  p.ask("paraphrase", "a spreadsheet upload created thousands of duplicate customers once, how did we fix it?", "INC-2251");
  p.ask("identifier", "proration bug in billing-api 3.38", "INC-2263");
  p.ask("paraphrase", "cron jobs running an hour late after the clocks changed", "INC-2270");
  p.ask("identifier", "xero 429 errors", "INC-2282");
  p.ask("paraphrase", "why were all API keys throttled when redis failed over?", "INC-2290");
  p.ask("paraphrase", "why did an index migration lock up ledger writes?", "INC-2301");
  p.ask("paraphrase", "why were logins so slow after the password hashing change?", "INC-2309");
  p.ask("paraphrase", "why were payouts late the day the batch job was paused?", "INC-2315");
  p.ask("identifier", "iOS app 5.2 crashing on launch", "INC-2330");
  p.ask("word-form", "webhook signatures invalid, customers rejecting with 401", "INC-2337");
  p.ask("identifier", "inc-2358 portal outage cause", "INC-2358");
  p.ask("paraphrase", "clickhouse ran out of disk space for metering", "INC-2362");
  p.ask("paraphrase", "OTP text messages arriving late in India", "INC-2369");
  p.ask("paraphrase", "an enterprise customer's legacy java client can't connect to the api since the cipher change", "INC-2374");
  p.ask("paraphrase", "why did paid subscriptions get marked past due?", "INC-2380");
  p.ask("synonym", "search showing customers from a different workspace, data leak?", "INC-2391");
  p.ask("paraphrase", "gaps in invoice numbers after a retry", "INC-2395");
  p.ask("direct", "is the ledger reconciliation slowness being worked on?", "INC-2398");
  p.ask("multi-fact", "which incidents were caused by expired certificates?", ["INC-2041", "INC-2197"]);
  p.ask("multi-fact", "what incidents has invoice-renderer had?", ["INC-2058", "INC-2322"]);
  p.ask("word-form", "unbounded caches rule after the billing api OOM", "INC-2344-followup");
  p.ask("paraphrase", "why were password reset emails bouncing that day with the old email provider?", "INC-2226");
  p.ask("identifier", "INC-2093", "INC-2093");
  p.ask("paraphrase", "what happened when one slow customer endpoint delayed everyone's webhooks?", "INC-2110");

  p.ask("identifier", "INC2322", "INC-2322");
  p.ask("identifier", "Inc-2386 what happened", "INC-2386");
  p.ask("identifier", "INC 2301", "INC-2301");
  p.ask("identifier", "what went wrong in auth-service v2.19.0?", "INC-2309");
  p.ask("identifier", "invoice-renderer 4.8.0 blank pages", "INC-2058");
  p.ask("identifier", "what is PAY-812 about?", "INC-2301-ticket");
  p.ask("identifier", "what's the plan for the kong 3.6 upgrade?", "near-kong-upgrade");
  p.ask("identifier", "billing-api v3.44.1 fix", "INC-2395");
  p.ask("identifier", "invoice.totalCents removal", "INC-2330");
  p.ask("identifier", "why is ECDHE-RSA-AES128-SHA still enabled?", "INC-2374");
  p.ask("multi-fact", "which incidents involved Adyen?", ["INC-2041", "INC-2124", "INC-2351", "INC-2380"]);
  p.ask("multi-fact", "what incidents did webhook-dispatcher have?", ["INC-2110", "INC-2337"]);
  p.ask("multi-fact", "list the auth-service incidents", ["INC-2093", "INC-2309"]);

  return p;
}

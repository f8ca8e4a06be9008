/**
 * Runbooks and procedures that are not tied to one service: databases, certificates, Kubernetes, queues,
 * people joining and leaving, disaster recovery.
 */
import { Part } from "./types";

export function runbooksPart(): Part {
  const p = new Part("run");

  p.about("postgres");
  p.procedure("failover", "RDS Multi-AZ fails over by itself in 1–2 minutes. Afterwards restart search-indexer's Debezium connector, because its replication slot doesn't follow the new primary (see INC-2214).", { c: 0.9, r: [150] });
  p.procedure("restore", "Restoring Postgres from backup: do an RDS point-in-time restore into a new instance (never over the existing one), verify the data, then point the service's DATABASE_URL in Vault at it and restart. Aisha must be involved.", { c: 0.9 });
  p.procedure("conn-exhaustion", "When a database runs out of connections: look for 'idle in transaction' sessions in pg_stat_activity and, after asking the service owner, end queries older than 5 minutes with pg_terminate_backend.");
  p.procedure("major-upgrade", "Before a Postgres major version upgrade: rehearse on a restored snapshot, check extensions (pg_partman, pgcrypto) and schedule it in the Sunday 02:00–05:00 UTC maintenance window.");

  p.about("certificates");
  p.procedure("tls", "TLS certificates for *.tallyfox.com come from Let's Encrypt through cert-manager and renew automatically. The Adyen client certificate and the SAML signing certificate are manual and tracked in the certificate calendar.", { r: [100] });
  p.procedure("stripe-webhook-secret", "Rotating the Stripe webhook secret: create a new endpoint secret in the Stripe dashboard, store it in Vault as secret/payments/payments-gateway/stripe_webhook_secret_next, deploy, then promote it; payments-gateway accepts both during the switch.");
  p.procedure("saml-cert", "Replacing the SAML signing certificate: generate the new certificate, upload it in the sso-bridge admin page, and tell enterprise customers to refresh our metadata at least two weeks before the old one expires.");

  p.about("kubernetes");
  p.procedure("scale", "Scaling a service: change the replicas in its values-prod.yaml in tallyfox/deploy and merge. Don't kubectl scale in production; ArgoCD reverts manual changes within minutes.", { c: 0.9, r: [35] });
  p.procedure("drain", "Draining a node: kubectl drain <node> --ignore-daemonsets --delete-emptydir-data. The drain can hang on payments-gateway until its replacement pods are ready.");
  p.procedure("secret-restart", "After changing a secret in Vault, restart the pods (kubectl rollout restart); our services only read secrets from vault-agent at startup.");
  p.procedure("stuck-sync", "A stuck ArgoCD sync: terminate the running operation in the UI, then sync again; use 'Replace' only if the diff shows immutable-field errors.");
  p.procedure("canary", "If a rollout fails its canary (error rate above 1% over 10 minutes), Argo Rollouts aborts automatically and scales the canary to zero; find out why before retrying.");

  p.about("operations");
  p.procedure("cdn-purge", "Purging the cache for app.tallyfox.com: Cloudflare dashboard → Caching → Purge by URL. 'Purge everything' needs Platform's approval.");
  p.procedure("reissue-invoice", "To re-render an invoice PDF, run `reissue-invoice --invoice <id>` from the ops toolbox; it regenerates the file without changing the number or the amounts.");
  p.procedure("kafka-replay", "Replaying a Kafka topic: use kafka-replay from the ops toolbox with --from-timestamp, after telling the teams that own every consumer of the topic.");
  p.procedure("unlock-user", "A user locked out after too many failed logins can be unlocked in admin-console → Users → Unlock; the lock also clears on its own after 30 minutes.");
  p.procedure("dlq", "Dead-letter queues: inspect messages with the dlq-inspect script, fix the cause, then redrive them to the source queue from the SQS console. Never delete a DLQ that still has messages.");
  p.procedure("redis-failover", "After an ElastiCache (Redis) failover clients reconnect on their own; rate-limiter fails open, but check tax-engine's cache hit rate afterwards.");
  p.fact("dr", "Disaster recovery targets: RPO 5 minutes, RTO 4 hours. DR game days happen every quarter; the next one is in January.", { c: 0.9 });
  p.procedure("credit-note", "Issuing a credit note: admin-console → Invoice → Credit note. A partial credit note must reference the line items it corrects.");
  p.procedure("avalara-down", "If Avalara is down, tax-engine serves cached rates. If the cache is cold too, set TAX_FALLBACK_MODE=estimate and tell Billing Core which invoices were flagged.");

  p.about("people operations");
  p.procedure("onboarding", "New engineer: IT creates the Okta account; the manager adds them to the GitHub team and the team's 1Password vault, and to PagerDuty after 6 weeks. Production read access comes after security training.", { r: [90, 20] });
  p.procedure("offboarding", "When someone leaves, IT disables their Okta account on the last day, which cuts GitHub, AWS and Datadog access; the manager has to move their PagerDuty shifts and reassign their Linear issues.");

  p.ask("paraphrase", "the db failed over, is there anything I need to restart afterwards?", "failover");
  p.ask("paraphrase", "how do I restore the database from a backup?", "restore");
  p.ask("word-form", "rotation of the stripe webhook signing secret", "stripe-webhook-secret");
  p.ask("paraphrase", "who renews the certs for our domains?", "tls");
  p.ask("synonym", "how do I scale up a worker in prod, can I just kubectl scale it?", "scale");
  p.ask("paraphrase", "clear the cloudflare cache for the app", "cdn-purge");
  p.ask("paraphrase", "customer needs a fresh copy of an invoice pdf", ["reissue-invoice", "cfg:ops-toolbox"]);
  p.ask("paraphrase", "user locked out after typing the wrong password too many times", ["unlock-user", "cfg:lockout"]);
  p.ask("direct", "what is our RPO and RTO?", "dr");
  p.ask("paraphrase", "messages piling up in the dead letter queue, what do I do?", "dlq");
  p.ask("common-words", "what do I need to do when someone on my team is leaving the company?", "offboarding");
  p.ask("paraphrase", "I changed a secret in vault but the service still uses the old value", "secret-restart");
  p.ask("paraphrase", "too many connections on postgres, how do I find what is holding them?", "conn-exhaustion");
  p.ask("word-form", "upgrading postgres to a new major version, what to check", "major-upgrade");
  p.ask("paraphrase", "kubernetes node drain hangs", ["drain", "cfg:pdb"]);
  p.ask("paraphrase", "argocd sync is stuck", "stuck-sync");
  p.ask("paraphrase", "why did my deployment get aborted automatically?", "canary");
  p.ask("paraphrase", "how do I re-send old kafka messages to consumers?", "kafka-replay");
  p.ask("synonym", "redis went down and came back, anything to check?", "redis-failover");
  p.ask("word-form", "how do I credit part of an invoice?", "credit-note");
  p.ask("paraphrase", "what tools and access does a new hire on my team need?", "onboarding");
  p.ask("multi-fact", "avalara outage: what does the tax service do and what do I do if the cache is empty?", ["avalara-down", "svc:tax-engine/avalara", "cfg:tax-fallback"]);
  p.ask("multi-fact", "which postgres version is the billing db on now and when can we do maintenance on it?", ["dec:billing-pg-new", "major-upgrade"]);
  p.ask("multi-fact", "ledger migration: who approves it, and how do I add an index without locking the table?", ["svc:ledger/migrations-new", "inc:INC-2301"]);
  p.ask("paraphrase", "the SAML cert is about to expire, what's the procedure?", "saml-cert");

  p.ask("direct", "disaster recovery game day", "dr");
  p.ask("direct", "dlq-inspect script", "dlq");
  p.ask("synonym", "pg connections maxed out", "conn-exhaustion");
  p.ask("word-form", "declaring an incident in slack", "conv:declare");
  p.ask("word-form", "when do newly hired engineers get added to pagerduty?", "onboarding");
  p.ask("word-form", "translating customer-facing text in the portal", ["conv:i18n", "ven:lokalise"]);
  p.ask("common-words", "how long is it going to be before I can get on the on-call rotation after I join?", "onboarding");
  p.ask("common-words", "what do I have to do if I want to put something on the status page while there is an incident going on?", ["ven:statuspage", "conv:status-updates"]);
  p.ask("common-words", "what is the first thing I should look at when one of the databases has no more connections left to give out?", "conn-exhaustion");
  p.ask("multi-fact", "what do I need before I can be put on call?", ["onboarding", "ven:pagerduty"]);

  return p;
}

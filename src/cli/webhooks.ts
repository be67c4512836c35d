import {
  changeEndpoint,
  createEndpoint,
  getEndpoint,
  listAccountEndpoints,
  listEndpointDeliveries,
  removeEndpoint,
  resendDelivery,
  rotateSecret,
} from "../domain/webhook-endpoints"
import { webhookDeliveryView, webhookEndpointView } from "../domain/api-views"
import { EVENT_NAMES } from "../domain/event-catalogue"
import { toIso, toIsoOrNull } from "../lib/time"
import { parseArgs, UsageError } from "./args"
import { commandUsage, requireSubcommand } from "./commands"
import { printJson, table, withServices, type CliIo } from "./io"
import { suggester } from "./suggest"
import { selectAccount } from "./select-account"

function parseEvents(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : text.split(",").map((e) => e.trim()).filter(Boolean)
}

function positiveInt(text: string | undefined, name: string, fallback: number, max: number): number {
  if (text === undefined) return fallback
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}`)
  return Number(text)
}

/**
 * `wagate webhooks …`: manage endpoints, read the delivery log, resend. A resend written here
 * is picked up by a running server within a second (it watches the database for other writers).
 */
export async function webhooksCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(["json", "enable", "disable"]))
  const [sub = "list", ...rest] = args.positionals
  requireSubcommand("webhooks", sub)
  const needId = (what: string) => {
    const id = rest[0]
    if (!id) throw new UsageError(`webhooks ${sub} needs a ${what}`)
    return id
  }
  return withServices(io, args.flags, async (services, config) => {
    const suggest = suggester(io, config.dataDir, config.databaseUrl)
    const ctx = services.ctx
    if (sub === "list") {
      const endpoints = await listAccountEndpoints(ctx, await selectAccount(services, args.flags.account, suggest))
      if (args.switches.has("json")) {
        printJson(io, endpoints.map(webhookEndpointView))
        return 0
      }
      io.stdout(
        table(
          ["ID", "ENV", "URL", "EVENTS", "ENABLED", "CREATED"],
          endpoints.map((e) => [e.id, e.env, e.url, e.events.join(","), e.enabled ? "yes" : "no", toIso(e.createdAtMs)]),
        ),
      )
      return 0
    }
    if (sub === "add") {
      if (!args.flags.url) throw new UsageError("webhooks add needs --url")
      const env = args.flags.env ?? "test"
      if (env !== "test" && env !== "live") throw new UsageError("--env must be test or live")
      const endpoint = await createEndpoint(ctx, {
        accountId: await selectAccount(services, args.flags.account, suggest),
        env,
        url: args.flags.url,
        events: parseEvents(args.flags.events) ?? ["*"],
      })
      io.stdout(
        `Added ${endpoint.env} webhook ${endpoint.id} → ${endpoint.url} (events: ${endpoint.events.join(", ")}).\n` +
          `\nSigning secret (shown only now):\n\n  ${endpoint.secret}\n\n` +
          `Verify X-Service-Signature with it: HMAC-SHA256 of "<t>.<raw body>", hex. Events: ${EVENT_NAMES.join(", ")}.\n`,
      )
      return 0
    }
    if (sub === "update") {
      const id = needId("WEBHOOK_ID")
      if (args.switches.has("enable") && args.switches.has("disable")) throw new UsageError("use --enable or --disable, not both")
      const enabled = args.switches.has("enable") ? true : args.switches.has("disable") ? false : undefined
      const endpoint = await changeEndpoint(ctx, id, { url: args.flags.url, events: parseEvents(args.flags.events), enabled })
      io.stdout(`Updated webhook ${endpoint.id}: ${endpoint.url}, events ${endpoint.events.join(",")}, ${endpoint.enabled ? "enabled" : "disabled"}.\n`)
      return 0
    }
    if (sub === "remove") {
      const endpoint = await removeEndpoint(ctx, needId("WEBHOOK_ID"))
      io.stdout(`Removed webhook ${endpoint.id} (${endpoint.url}) and its delivery log.\n`)
      return 0
    }
    if (sub === "rotate-secret") {
      const endpoint = await rotateSecret(ctx, needId("WEBHOOK_ID"))
      io.stdout(
        `New signing secret for ${endpoint.id} (shown only now):\n\n  ${endpoint.secret}\n\n` +
          `The previous secret keeps signing beside it until ${toIso(endpoint.previousSecretExpiresAtMs!)}.\n`,
      )
      return 0
    }
    if (sub === "deliveries") {
      const id = needId("WEBHOOK_ID")
      await getEndpoint(ctx, id)
      const status = args.flags.status
      if (status !== undefined && status !== "pending" && status !== "succeeded" && status !== "failed") {
        throw new UsageError("--status must be pending, succeeded or failed")
      }
      const page = await listEndpointDeliveries(ctx, id, {
        status,
        page: positiveInt(args.flags.page, "page", 1, 1_000_000_000),
        limit: positiveInt(args.flags.limit, "limit", 20, 100),
      })
      if (args.switches.has("json")) {
        // The admin API's page: `data` and `pagination`, as GET /admin/v1/webhooks/{id}/deliveries.
        printJson(io, {
          data: page.rows.map(webhookDeliveryView),
          pagination: { page: page.page, limit: page.limit, total: page.total, totalPages: Math.ceil(page.total / page.limit) },
        })
        return 0
      }
      const lines = page.rows.flatMap(({ delivery: d, eventType, attempts }) => [
        [d.id, eventType, d.status, d.attemptCount, d.lastStatusCode ?? d.lastError, toIsoOrNull(d.status === "pending" ? d.nextAttemptAtMs : null)],
        ...attempts.map((a) => [`  #${a.attemptNumber}`, toIso(a.attemptedAtMs), a.statusCode ?? "-", `${a.latencyMs} ms`, a.error, null]),
      ])
      io.stdout(table(["DELIVERY", "EVENT", "STATUS", "ATTEMPTS", "LAST RESULT", "NEXT ATTEMPT"], lines))
      io.stdout(`page ${page.page}, ${page.rows.length} of ${page.total}\n`)
      return 0
    }
    if (sub === "resend") {
      const created = await resendDelivery(ctx, needId("DELIVERY_ID"))
      io.stdout(`Queued delivery ${created.delivery.id} of ${created.eventType} (resent from ${created.delivery.resentFrom}).\n`)
      return 0
    }
    throw new UsageError(`Unknown webhooks command "${sub}"\n${commandUsage("webhooks")}`)
  })
}

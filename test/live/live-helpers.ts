import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { MediaDownload } from "../../src/domain/outbound-parts"
import type { Harness, TestResponse } from "../helpers/harness"
import type { MediaKind } from "../../src/whatsapp/gateway"
import { createEndpoint } from "../../src/domain/webhook-endpoints"

/** A live tenant: account, live key with every scope, and its phone connected through the fake. */
export async function liveTenant(h: Harness, options: { connect?: boolean; phoneNumber?: string } = {}) {
  const tenant = await h.seedTenant({ env: "live", phoneNumber: options.phoneNumber })
  if (options.connect !== false) await h.connectPhone(tenant.phone)
  return tenant
}

export function send(h: Harness, key: string, body: Record<string, unknown>): Promise<TestResponse> {
  return h.request("POST", "/v1/messages/send", { key, body })
}

export async function getMessage(h: Harness, key: string, id: string) {
  const res = await h.request("GET", `/v1/messages/${id}`, { key })
  if (res.status !== 200) throw new Error(`GET /v1/messages/${id}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data
}

/**
 * Subscribes a live endpoint so that events are written to the outbox; its URL never answers,
 * the tests read the recorded events (`eventsOf`). Tests about delivery use a real receiver.
 */
export async function recordEvents(h: Harness, accountId: string): Promise<void> {
  // Through the domain, not the admin API: that would reset the admin token a test holds.
  await createEndpoint(h.services.ctx, { accountId, env: "live", url: "http://127.0.0.1:9/unused", events: ["*"] })
}

/** The events recorded in the outbox, oldest first, optionally of one type. */
export function eventsOf(h: Harness, type?: string): { event: string; timestamp: string; data: any }[] {
  const rows = h.services.sqlite!.query("SELECT type, body FROM events ORDER BY rowid").all() as { type: string; body: string }[]
  return rows.filter((r) => type === undefined || r.type === type).map((r) => JSON.parse(r.body))
}

/** The message's parts as stored. */
export function partsOf(h: Harness, messageId: string) {
  return h.services.sqlite!
    .query("SELECT part_index AS partIndex, wa_message_id AS waMessageId, media_url AS mediaUrl, status FROM message_parts WHERE message_id = ? ORDER BY part_index")
    .all(messageId) as { partIndex: number; waMessageId: string; mediaUrl: string | null; status: string }[]
}

export function sendJobCount(h: Harness): number {
  return (h.services.sqlite!.query("SELECT COUNT(*) AS n FROM send_jobs").get() as { n: number }).n
}

/** A media fixture server in the domain's terms: URL → media, anything else fails to download. */
export function mediaFixtures(fixtures: Record<string, { kind: MediaKind; mimetype: string; fileName: string; bytes?: Uint8Array }>) {
  const fetched: string[] = []
  const fetchMedia = async (url: string): Promise<MediaDownload> => {
    fetched.push(url)
    const f = fixtures[url]
    if (!f) return { ok: false, errorCode: "media_fetch_failed", message: `GET ${url} answered 404` }
    // Like the real fetcher, each download is a file of its own, which wagate removes after the send.
    const bytes = f.bytes ?? new TextEncoder().encode(`bytes of ${url}`)
    const path = join(dir, `media-${++files}`)
    writeFileSync(path, bytes, { mode: 0o600 })
    return { ok: true, media: { kind: f.kind, mimetype: f.mimetype, fileName: f.fileName, path, sizeBytes: bytes.length } }
  }
  const dir = mkdtempSync(join(tmpdir(), "wagate-fixtures-"))
  let files = 0
  return { fetchMedia, fetched, dir }
}

export const iso = (ms: number) => new Date(ms).toISOString()

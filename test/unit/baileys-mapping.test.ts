/*
 * The Baileys → wagate mapping over fixtures in test/fixtures/baileys/. Most fixtures were
 * RECORDED from real Baileys 7.0.0-rc14 on Bun against the fake WhatsApp server of
 * shared/reference/fake-wa-prototype (acks, 1:1 and group receipts, receipts consolidated by the
 * event buffer, our own append upserts, every inbound type, a decryption failure, groups, closes);
 * a few are CONSTRUCTED from baileys-7.md where the fake cannot produce them (group inbound,
 * Long timestamps on inbound, the skip cases). Each fixture's `_source` says which.
 *
 * JSON keeps what the mapping reads: enums are numbers, Longs are {low, high, unsigned} (which
 * the mapping accepts as they are), Buffers are {type:'Buffer', data} (never read here).
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as baileys from "@whiskeysockets/baileys"
import type { DisconnectReason, GroupInfo, InboundMessage, OutboundPart } from "../../src/whatsapp/gateway"
import {
  closeMessage,
  closeStatusCode,
  decideDisconnect,
  decodeJid,
  mapContent,
  mapGroups,
  mapInboundUpsert,
  mapMessageUpdates,
  mapOwnUpserts,
  mapReceiptUpdates,
  mapServerAck,
  normalizeUserJid,
  sameUser,
  secondsToMs,
  senderAddress,
  unwrapContent,
  type AckNode,
  type GroupMetadataLike,
  type MessageContentLike,
  type MessageUpdateLike,
  type OutboundSignal,
  type ReceiptUpdateLike,
  type SelfLike,
  type UpsertLike,
} from "../../src/whatsapp/baileys/mapping"
import { bridgeLogger, partContent } from "../../src/whatsapp/baileys/session"
import { boundedCache } from "../../src/whatsapp/baileys/gateway"

const FIXTURES = join(import.meta.dir, "..", "fixtures", "baileys")

interface Fixture<T> {
  _source: string
  event: string
  payload: T
  self?: SelfLike
}

function fixture<T>(name: string): Fixture<T> {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Fixture<T>
}
const payload = <T>(name: string): T => fixture<T>(name).payload

/** Later than every fixture timestamp, so WhatsApp's own times are kept (not clamped to now). */
const NOW_MS = 1_900_000_000_000

describe("disconnects", () => {
  const QR_ENDED = "QR refs attempts ended"
  const table: [code: number | null, message: string, pairing: boolean, closedByUs: boolean, reason: DisconnectReason, terminal: boolean, restartNow: boolean][] = [
    [515, "Stream Errored (restart required)", false, false, "restart_required", false, true],
    [515, "", true, false, "restart_required", false, true],
    [401, "Stream Errored (conflict)", false, false, "logged_out", true, false],
    [403, "", false, false, "forbidden", true, false],
    [405, "Connection Failure", false, false, "outdated_version", true, false],
    [411, "", false, false, "multidevice_mismatch", true, false],
    [419, "", false, false, "logged_out", true, false],
    [440, "Stream Errored (conflict)", false, false, "replaced", true, false],
    [408, QR_ENDED, true, false, "pairing_expired", true, false],
    // A refused connection or a keepalive miss is a 408 too: only the refs running out is expiry.
    [408, "WebSocket Error (Unable to connect)", true, false, "connection_lost", false, false],
    [408, "Connection was lost", false, false, "connection_lost", false, false],
    [408, QR_ENDED, false, false, "connection_lost", false, false],
    [428, "Connection Closed", false, false, "connection_lost", false, false],
    [503, "", false, false, "connection_lost", false, false],
    [500, "", false, false, "bad_session", false, false],
    [599, "", false, false, "connection_lost", false, false],
    [null, "", false, false, "connection_lost", false, false],
    [null, "", false, true, "closed_by_us", true, false],
    // sock.logout() ends the socket with 401: we asked for it, so it is not a remote logout.
    [401, "Intentional Logout", false, true, "closed_by_us", true, false],
  ]
  test.each(table)("code %p %p (pairing %p, closed by us %p) → %s", (statusCode, message, pairing, closedByUs, reason, terminal, restartNow) => {
    expect(decideDisconnect({ statusCode, message, pairing, closedByUs })).toEqual({ reason, terminal, restartNow })
  })

  const recorded: [fixture: string, code: number | null, reason: DisconnectReason][] = [
    ["connection-close-515", 515, "restart_required"],
    ["connection-close-401", 401, "logged_out"],
    ["connection-close-by-end", null, "connection_lost"],
  ]
  test.each(recorded)("recorded %s: status code %p → %s", (name, code, reason) => {
    const update = payload<{ connection: string; lastDisconnect?: { error?: unknown } }>(name)
    expect(update.connection).toBe("close")
    const statusCode = closeStatusCode(update.lastDisconnect?.error)
    expect(statusCode).toBe(code)
    expect(decideDisconnect({ statusCode, message: closeMessage(update.lastDisconnect?.error), pairing: false, closedByUs: false }).reason).toBe(reason)
  })

  test("the error Baileys closes with when the pairing refs run out reads as pairing_expired", () => {
    // The shape of Baileys' Boom (socket.js: new Boom('QR refs attempts ended', { statusCode: timedOut })).
    const error = Object.assign(new Error(QR_ENDED), { output: { statusCode: baileys.DisconnectReason.timedOut } })
    expect(decideDisconnect({ statusCode: closeStatusCode(error), message: closeMessage(error), pairing: true, closedByUs: false }).reason).toBe("pairing_expired")
    expect(closeMessage(undefined)).toBe("")
  })

  test("closeStatusCode reads only a numeric Boom status", () => {
    expect(closeStatusCode(undefined)).toBeNull()
    expect(closeStatusCode(new Error("x"))).toBeNull()
    expect(closeStatusCode({ output: { statusCode: "401" } })).toBeNull()
    expect(closeStatusCode({ output: { statusCode: 428 } })).toBe(428)
  })
})

describe("server acks (raw CB:ack,class:message)", () => {
  const table: [fixture: string, expected: OutboundSignal][] = [
    ["ack-success", { kind: "acked", waMessageId: "3EB0AAAA000000000000A1", atMs: NOW_MS }],
    ["ack-error-463", { kind: "rejected", waMessageId: "3EB0BBBB00000000000463", rejection: { code: "account_restricted", detail: "463" }, atMs: NOW_MS }],
    ["ack-error-479", { kind: "rejected", waMessageId: "3EB0BBBB00000000000479", rejection: { code: "whatsapp_rejected", detail: "479" }, atMs: NOW_MS }],
    ["ack-error-403", { kind: "rejected", waMessageId: "3EB0BBBB00000000000403", rejection: { code: "whatsapp_rejected", detail: "403" }, atMs: NOW_MS }],
  ]
  test.each(table)("%s", (name, expected) => {
    expect(mapServerAck(payload<AckNode>(name), NOW_MS)).toEqual(expected)
  })

  test("other acks and acks without an id are not ours", () => {
    expect(mapServerAck({ tag: "ack", attrs: { class: "receipt", id: "X" } }, NOW_MS)).toBeNull()
    expect(mapServerAck({ tag: "ack", attrs: { class: "message" } }, NOW_MS)).toBeNull()
    expect(mapServerAck({ tag: "receipt", attrs: { class: "message", id: "X" } }, NOW_MS)).toBeNull()
  })
})

describe("messages.update (1:1 receipts, error acks)", () => {
  const s = (seconds: number) => seconds * 1000
  const table: [fixture: string, expected: OutboundSignal[]][] = [
    ["update-1to1-delivered", [{ kind: "receipt", waMessageId: "3EB0AAAA000000000000A2", receipt: "delivered", atMs: s(1795325082) }]],
    ["update-1to1-read", [{ kind: "receipt", waMessageId: "3EB0AAAA000000000000A1", receipt: "read", atMs: s(1795325082) }]],
    ["update-1to1-played", [{ kind: "receipt", waMessageId: "3EB0AAAA000000000000A3", receipt: "read", atMs: s(1795325083) }]],
    ["update-1to1-delivered-from-lid", [{ kind: "receipt", waMessageId: "3EB0AAAA000000000000A4", receipt: "delivered", atMs: s(1795325083) }]],
    ["update-1to1-delivered-and-read-merged", [{ kind: "receipt", waMessageId: "3EB0AAAA000000000000B2", receipt: "read", atMs: s(1795325092) }]],
    ["update-error-463", [{ kind: "rejected", waMessageId: "3EB0BBBB00000000000463", rejection: { code: "account_restricted", detail: "463" }, atMs: NOW_MS }]],
    ["update-error-479", [{ kind: "rejected", waMessageId: "3EB0BBBB00000000000479", rejection: { code: "whatsapp_rejected", detail: "479" }, atMs: NOW_MS }]],
    ["update-error-403", [{ kind: "rejected", waMessageId: "3EB0BBBB00000000000403", rejection: { code: "whatsapp_rejected", detail: "403" }, atMs: NOW_MS }]],
  ]
  test.each(table)("%s", (name, expected) => {
    expect(mapMessageUpdates(payload<MessageUpdateLike[]>(name), NOW_MS)).toEqual(expected)
  })

  test("PENDING, SERVER_ACK, no status and other people's messages say nothing", () => {
    const key = { remoteJid: "15550002222@s.whatsapp.net", id: "X", fromMe: true }
    expect(
      mapMessageUpdates(
        [
          { key, update: { status: 1 } },
          { key, update: { status: 2, messageTimestamp: 1795325000 } },
          { key, update: {} },
          { key: { ...key, fromMe: false }, update: { status: 4 } },
          { key: { ...key, id: null }, update: { status: 4 } },
        ],
        NOW_MS,
      ),
    ).toEqual([])
  })

  test("an error without parameters is 'unknown'; a receipt time ahead of ours is clamped to now", () => {
    const key = { remoteJid: "1@s.whatsapp.net", id: "X", fromMe: true }
    expect(mapMessageUpdates([{ key, update: { status: 0 } }], NOW_MS)).toEqual([{ kind: "rejected", waMessageId: "X", rejection: { code: "whatsapp_rejected", detail: "unknown" }, atMs: NOW_MS }])
    expect(mapMessageUpdates([{ key, update: { status: 3, messageTimestamp: 1795325082 } }], 1_000)).toEqual([
      { kind: "receipt", waMessageId: "X", receipt: "delivered", atMs: 1_000 },
    ])
  })
})

describe("message-receipt.update (group receipts)", () => {
  const s = (seconds: number) => seconds * 1000
  const table: [fixture: string, expected: OutboundSignal[]][] = [
    ["receipt-group-delivered", [{ kind: "receipt", waMessageId: "3EB0CCCC000000000000C1", receipt: "delivered", atMs: s(1795325085) }]],
    ["receipt-group-read", [{ kind: "receipt", waMessageId: "3EB0CCCC000000000000C1", receipt: "read", atMs: s(1795325085) }]],
    ["receipt-group-lid-participant", [{ kind: "receipt", waMessageId: "3EB0CCCC000000000000C1", receipt: "delivered", atMs: s(1795325086) }]],
    [
      "receipt-group-delivered-and-read-merged",
      [
        { kind: "receipt", waMessageId: "3EB0CCCC000000000000C3", receipt: "delivered", atMs: s(1795325092) },
        { kind: "receipt", waMessageId: "3EB0CCCC000000000000C3", receipt: "read", atMs: s(1795325092) },
      ],
    ],
  ]
  test.each(table)("%s", (name, expected) => {
    expect(mapReceiptUpdates(payload<ReceiptUpdateLike[]>(name), NOW_MS)).toEqual(expected)
  })

  test("played counts as read; receipts of others' messages are ignored", () => {
    const key = { remoteJid: "1@g.us", id: "G", fromMe: true, participant: "2@s.whatsapp.net" }
    expect(mapReceiptUpdates([{ key, receipt: { userJid: "2@s.whatsapp.net", playedTimestamp: { low: 1795325000, high: 0, unsigned: true } } }], NOW_MS)).toEqual([
      { kind: "receipt", waMessageId: "G", receipt: "read", atMs: 1795325000_000 },
    ])
    expect(mapReceiptUpdates([{ key: { ...key, fromMe: false }, receipt: { receiptTimestamp: 1795325000 } }], NOW_MS)).toEqual([])
  })
})

describe("our own messages.upsert (receipts folded into append)", () => {
  const table: [fixture: string, expected: OutboundSignal[]][] = [
    ["upsert-append-with-user-receipt", [{ kind: "receipt", waMessageId: "3EB0CCCC000000000000C2", receipt: "delivered", atMs: 1795325086_000 }]],
    ["upsert-append-own-status-delivered", [{ kind: "receipt", waMessageId: "3EB0AAAA000000000000A1", receipt: "delivered", atMs: NOW_MS }]],
    ["upsert-append-own-pending", []],
    ["upsert-inbound-pn", []],
    ["upsert-decryption-stub", []],
  ]
  test.each(table)("%s", (name, expected) => {
    expect(mapOwnUpserts(payload<UpsertLike>(name), NOW_MS)).toEqual(expected)
  })

  test("an error ack folded into the append becomes a rejection; a folded read is a read", () => {
    const key = { remoteJid: "1@s.whatsapp.net", id: "X", fromMe: true }
    expect(mapOwnUpserts({ type: "append", messages: [{ key, status: 0, messageStubParameters: ["479"] }] }, NOW_MS)).toEqual([
      { kind: "rejected", waMessageId: "X", rejection: { code: "whatsapp_rejected", detail: "479" }, atMs: NOW_MS },
    ])
    expect(mapOwnUpserts({ type: "append", messages: [{ key, status: 4 }] }, NOW_MS)).toEqual([{ kind: "receipt", waMessageId: "X", receipt: "read", atMs: NOW_MS }])
  })
})

describe("inbound messages.upsert", () => {
  const base = { isGroup: false, groupId: null }
  const alice = "+15550002222"
  const table: [fixture: string, expected: InboundMessage[]][] = [
    ["upsert-inbound-pn", [{ ...base, waMessageId: "3EB046B16E6BF01D2568", from: alice, type: "text", content: "hi from alice", receivedAtMs: 1795325086_000 }]],
    // LID-addressed 1:1: remoteJid is the LID, remoteJidAlt carries the number.
    ["upsert-inbound-lid", [{ ...base, waMessageId: "3EB095B55C40DE9A185C", from: "+15550003333", type: "text", content: "hi from bob, lid-addressed", receivedAtMs: 1795325087_000 }]],
    ["upsert-inbound-extended-text", [{ ...base, waMessageId: "3EB0E87DE85D72A8D820", from: alice, type: "text", content: "see https://example.com", receivedAtMs: 1795325087_000 }]],
    ["upsert-inbound-image-caption", [{ ...base, waMessageId: "3EB031A2AC1426CACB3A", from: alice, type: "image", content: "a caption", receivedAtMs: 1795325087_000 }]],
    ["upsert-inbound-video", [{ ...base, waMessageId: "3EB046335A523A1C5F40", from: alice, type: "video", content: "", receivedAtMs: 1795325087_000 }]],
    ["upsert-inbound-audio-ptt", [{ ...base, waMessageId: "3EB0A3A5EF4695790648", from: alice, type: "audio", content: "", receivedAtMs: 1795325088_000 }]],
    ["upsert-inbound-document-caption", [{ ...base, waMessageId: "3EB0F38029F900B7E379", from: alice, type: "document", content: "the report", receivedAtMs: 1795325088_000 }]],
    ["upsert-inbound-document-with-caption", [{ ...base, waMessageId: "3EB0B458072B5A862C7C", from: alice, type: "document", content: "Q3 numbers", receivedAtMs: 1795325088_000 }]],
    ["upsert-inbound-sticker", [{ ...base, waMessageId: "3EB0384DCB018C9D9C08", from: alice, type: "sticker", content: "", receivedAtMs: 1795325089_000 }]],
    ["upsert-inbound-location", [{ ...base, waMessageId: "3EB068D3A2126F1E4275", from: alice, type: "location", content: "Eiffel Tower", receivedAtMs: 1795325089_000 }]],
    ["upsert-inbound-contact", [{ ...base, waMessageId: "3EB09B3C8A92DF59F40F", from: alice, type: "contact", content: "Dave", receivedAtMs: 1795325089_000 }]],
    // A poll (the fixture's name predates polls, when it mapped to type other).
    ["upsert-inbound-other-poll", [{ ...base, waMessageId: "3EB0ABD28193418C941D", from: alice, type: "poll", content: "Lunch?", receivedAtMs: 1795325090_000 }]],
    ["upsert-inbound-ephemeral-image", [{ ...base, waMessageId: "3EB0055B7905E8A2A565", from: alice, type: "image", content: "disappearing", receivedAtMs: 1795325090_000 }]],
    ["upsert-inbound-view-once-image", [{ ...base, waMessageId: "3EB03684B71D6C65DC49", from: alice, type: "image", content: "see once", receivedAtMs: 1795325090_000 }]],
    ["upsert-inbound-offline-append", [{ ...base, waMessageId: "3EB045284F4247E09E6E", from: alice, type: "text", content: "sent while you were away", receivedAtMs: 1795325092_000 }]],
    ["upsert-inbound-long-timestamp", [{ ...base, waMessageId: "3EB0E4E4E4E4E4E4E4E4", from: alice, type: "text", content: "timestamp as a protobuf Long", receivedAtMs: 1795325103_000 }]],
    [
      "upsert-inbound-group-pn",
      [{ waMessageId: "3EB0E3E3E3E3E3E3E3E3", from: alice, isGroup: true, groupId: "120363000000000001@g.us", type: "image", content: "group photo", receivedAtMs: 1795325102_000 }],
    ],
    [
      "upsert-inbound-group-lid",
      [
        {
          waMessageId: "3EB0E1E1E1E1E1E1E1E1",
          from: "+15550004444",
          isGroup: true,
          groupId: "120363000000000004@g.us",
          type: "text",
          content: "hello group, from a LID participant",
          receivedAtMs: 1795325100_000,
        },
      ],
    ],
    ["upsert-inbound-reaction", []],
    ["upsert-decryption-stub", []],
    ["upsert-inbound-not-recorded", []],
    ["upsert-append-own-pending", []],
  ]
  test.each(table)("%s", async (name, expected) => {
    const lookups: string[] = []
    const pnForLid = async (lid: string) => {
      lookups.push(lid)
      return null
    }
    // The richer details have tests of their own (test/whatsapp/inbound-details.test.ts).
    const mapped = await mapInboundUpsert(payload<UpsertLike>(name), { pnForLid, nowMs: NOW_MS })
    expect(mapped.map(({ details: _details, sender: _sender, ...m }) => m)).toEqual(expected)
    // Every fixture above names the number itself (or is skipped): the LID store is never asked.
    expect(lookups).toEqual([])
  })

  test("a hidden number is looked up by LID; unknown (or a failed lookup) leaves the raw LID", async () => {
    const upsert = payload<UpsertLike>("upsert-inbound-group-lid-hidden")
    const lookups: string[] = []
    const known = await mapInboundUpsert(upsert, {
      nowMs: NOW_MS,
      pnForLid: async (lid) => {
        lookups.push(lid)
        return "15550009999@s.whatsapp.net"
      },
    })
    expect(lookups).toEqual(["200000000000009@lid"])
    expect(known.map((m) => m.from)).toEqual(["+15550009999"])
    const unknown = (await mapInboundUpsert(upsert, { nowMs: NOW_MS, pnForLid: async () => null })).map(({ details: _details, sender: _sender, ...m }) => m)
    expect(unknown).toEqual([
      { waMessageId: "3EB0E2E2E2E2E2E2E2E2", from: "200000000000009@lid", isGroup: true, groupId: "120363000000000004@g.us", type: "text", content: "number hidden", receivedAtMs: 1795325101_000 },
    ])
    const failing = await mapInboundUpsert(upsert, { nowMs: NOW_MS, pnForLid: async () => Promise.reject(new Error("store down")) })
    expect(failing.map((m) => m.from)).toEqual(["200000000000009@lid"])
  })

  test("sender: device suffixes are dropped; a 1:1 LID without alternate is resolved", async () => {
    expect(await senderAddress({ remoteJid: "15550002222:3@s.whatsapp.net" }, async () => null)).toBe("+15550002222")
    expect(await senderAddress({ remoteJid: "200000000000002:7@lid" }, async (lid) => (lid === "200000000000002@lid" ? "15550002222@s.whatsapp.net" : null))).toBe(
      "+15550002222",
    )
    expect(await senderAddress({ remoteJid: "1@g.us", participant: "" }, async () => null)).toBeNull()
  })

  test("other upsert types and a missing timestamp", async () => {
    const msg = { key: { remoteJid: "15550002222@s.whatsapp.net", id: "Z", fromMe: false }, message: { conversation: "x" } }
    expect(await mapInboundUpsert({ type: "history", messages: [msg] }, { pnForLid: async () => null, nowMs: NOW_MS })).toEqual([])
    expect((await mapInboundUpsert({ type: "notify", messages: [msg] }, { pnForLid: async () => null, nowMs: 42 }))[0]!.receivedAtMs).toBe(42)
  })
})

describe("content", () => {
  const table: [label: string, message: MessageContentLike | null, expected: ReturnType<typeof mapContent>][] = [
    ["edited wrapper around text", { editedMessage: { message: { conversation: "edited" } } }, { type: "text", content: "edited" }],
    ["view once v1", { viewOnceMessage: { message: { videoMessage: { caption: "v" } } } }, { type: "video", content: "v" }],
    ["view once v2 extension", { viewOnceMessageV2Extension: { message: { audioMessage: {} } } }, { type: "audio", content: "" }],
    ["nested wrappers", { ephemeralMessage: { message: { documentWithCaptionMessage: { message: { documentMessage: { caption: "d" } } } } } }, { type: "document", content: "d" }],
    ["video note (ptv)", { ptvMessage: {} }, { type: "video", content: "" }],
    ["location without a name", { locationMessage: { address: "Main St 1" } }, { type: "location", content: "Main St 1" }],
    ["live location", { liveLocationMessage: { caption: "on my way" } }, { type: "location", content: "on my way" }],
    ["several contacts", { contactsArrayMessage: { displayName: "2 contacts" } }, { type: "contact", content: "2 contacts" }],
    ["empty text is still text", { conversation: "" }, { type: "text", content: "" }],
    ["group text beside a sender key", { senderKeyDistributionMessage: {}, conversation: "in group" }, { type: "text", content: "in group" }],
    ["sender key alone", { senderKeyDistributionMessage: {}, messageContextInfo: {} }, null],
    ["revoke", { protocolMessage: {} }, null],
    ["encrypted reaction", { encReactionMessage: {} }, null],
    ["pin", { pinInChatMessage: {} }, null],
    ["nothing", null, null],
    ["empty wrapper", { ephemeralMessage: {} }, null],
  ]
  test.each(table)("%s", (_label, message, expected) => {
    expect(mapContent(message)).toEqual(expected)
  })

  test("unwrapContent agrees with Baileys' normalizeMessageContent on every fixture message", () => {
    const names = [
      "upsert-inbound-ephemeral-image",
      "upsert-inbound-view-once-image",
      "upsert-inbound-document-with-caption",
      "upsert-inbound-pn",
      "upsert-inbound-not-recorded",
      "upsert-inbound-group-lid",
    ]
    for (const name of names) {
      for (const m of payload<UpsertLike>(name).messages) {
        if (!m.message) continue
        expect(unwrapContent(m.message) as unknown).toEqual(baileys.normalizeMessageContent(m.message as baileys.proto.IMessage) as unknown)
      }
    }
  })
})

describe("JIDs and timestamps", () => {
  const jids = [
    "15550001111:1@s.whatsapp.net",
    "15550001111@s.whatsapp.net",
    "100000000000001:1@lid",
    "100000000000001@lid",
    "15550001111_1:2@s.whatsapp.net",
    "120363000000000001@g.us",
    "status@broadcast",
    "s.whatsapp.net",
  ]
  test.each(jids)("decode and normalize %s like Baileys", (jid) => {
    const ours = decodeJid(jid)
    const theirs = baileys.jidDecode(jid)
    expect(ours?.user).toBe(theirs?.user)
    expect(ours?.server ?? undefined).toBe(theirs?.server)
    if (theirs) expect(normalizeUserJid(jid)).toBe(baileys.jidNormalizedUser(jid))
  })

  test("sameUser agrees with areJidsSameUser on JIDs, and never matches a non-JID", () => {
    const real = jids.filter((j) => j.includes("@"))
    for (const a of real) for (const b of real) expect(sameUser(a, b)).toBe(baileys.areJidsSameUser(a, b))
    // Baileys calls two unparsable strings the same user (undefined === undefined); we do not.
    expect(sameUser("s.whatsapp.net", "s.whatsapp.net")).toBe(false)
    expect(sameUser(undefined, undefined)).toBe(false)
  })

  const seconds: [label: string, value: Parameters<typeof secondsToMs>[0], ms: number | null][] = [
    ["number", 1795325086, 1795325086_000],
    ["numeric string", "1795325086", 1795325086_000],
    ["Long", { low: 1795325086, high: 0, unsigned: true }, 1795325086_000],
    ["Long with the sign bit in low", { low: -1, high: 0, unsigned: true }, 4294967295_000],
    ["zero", 0, null],
    ["absent", undefined, null],
    ["garbage", "soon", null],
  ]
  test.each(seconds)("secondsToMs: %s", (_label, value, ms) => {
    expect(secondsToMs(value)).toBe(ms)
  })

  test("a real Long (from Baileys' protobuf) is read too", () => {
    const msg = baileys.proto.WebMessageInfo.fromObject({ key: { id: "X" }, messageTimestamp: 1795325086 })
    expect(secondsToMs(msg.messageTimestamp as Parameters<typeof secondsToMs>[0])).toBe(1795325086_000)
  })
})

describe("groups", () => {
  const { payload: groups, self } = fixture<Record<string, GroupMetadataLike>>("groups-participating")

  test("recorded groups, seen by the recorded account (PN id and LID)", () => {
    expect(self).toEqual({ id: "15550001111:1@s.whatsapp.net", lid: "100000000000001:1@lid" })
    const expected: GroupInfo[] = [
      { id: "120363000000000001@g.us", name: "PN group, self admin", announcementOnly: false, selfIsMember: true, selfIsAdmin: true },
      { id: "120363000000000002@g.us", name: "Announcements, self not admin", announcementOnly: true, selfIsMember: true, selfIsAdmin: false },
      { id: "120363000000000003@g.us", name: "LID announcements, self admin", announcementOnly: true, selfIsMember: true, selfIsAdmin: true },
      { id: "120363000000000004@g.us", name: "LID group, self member", announcementOnly: false, selfIsMember: true, selfIsAdmin: false },
      { id: "120363000000000005@g.us", name: "Community announcements", announcementOnly: true, selfIsMember: true, selfIsAdmin: false },
      { id: "120363000000000006@g.us", name: "Group without self", announcementOnly: false, selfIsMember: false, selfIsAdmin: false },
    ]
    expect(mapGroups(groups, self!)).toEqual(expected)
  })

  test("without our LID, LID-addressed groups still find us through phoneNumber", () => {
    const mapped = mapGroups(groups, { id: "15550001111:1@s.whatsapp.net" })
    expect(mapped.find((g) => g.id === "120363000000000003@g.us")).toMatchObject({ selfIsMember: true, selfIsAdmin: true })
  })

  test("a participant known by its lid field only; a group without participants", () => {
    const g: GroupMetadataLike = { id: "9@g.us", subject: "x", announce: true, participants: [{ id: "15550009999@s.whatsapp.net", lid: "100000000000001@lid", admin: "superadmin" }] }
    expect(mapGroups({ [g.id]: g }, { id: "15550001111:1@s.whatsapp.net", lid: "100000000000001:1@lid" })[0]).toMatchObject({ selfIsMember: true, selfIsAdmin: true })
    expect(mapGroups({ "8@g.us": { id: "8@g.us" } }, self!)).toEqual([{ id: "8@g.us", name: "", announcementOnly: false, selfIsMember: false, selfIsAdmin: false }])
  })
})

describe("adapter helpers", () => {
  const part = (media?: OutboundPart["media"], text?: string): OutboundPart => ({ waMessageId: "W", toJid: "1@s.whatsapp.net", media, text })

  test("partContent: text as Baileys' text; media never becomes Baileys content (wagate uploads it itself)", () => {
    expect(partContent(part(undefined, "hello"))).toEqual({ text: "hello" })
    expect(() => partContent(part())).toThrow(TypeError)
    expect(() => partContent(part({ kind: "image", path: "/data/tmp/media-1.part", sizeBytes: 3, mimetype: "image/png" }, "caption"))).toThrow(TypeError)
  })

  test("bridgeLogger forwards warnings and errors only, with bindings", () => {
    const lines: [string, string, Record<string, unknown> | undefined][] = []
    const rec = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push([level, msg, fields])
    const logger = bridgeLogger({ debug: rec("debug"), info: rec("info"), warn: rec("warn"), error: rec("error") }, { phoneId: "ph_1" })
    logger.info({ a: 1 }, "ignored")
    logger.child({ class: "socket" }).warn({ err: "x" }, "careful")
    logger.error("plain")
    expect(lines).toEqual([
      ["warn", "baileys: careful", { phoneId: "ph_1", class: "socket", detail: { err: "x" } }],
      ["error", "baileys: plain", { phoneId: "ph_1" }],
    ])
    expect(logger.level).toBe("warn")
  })

  test("bridgeLogger demotes Baileys' errors about a connection ending to debug: the session manager logs that failure once, with its code", () => {
    const lines: [string, string][] = []
    const rec = (level: string) => (msg: string) => void lines.push([level, msg])
    const logger = bridgeLogger({ debug: rec("debug"), info: rec("info"), warn: rec("warn"), error: rec("error") }, { phoneId: "ph_1" })
    logger.error({ err: new Error("Timed Out") }, "error in validating connection")
    logger.error({ reasonNode: {} }, "stream errored out")
    logger.error({ err: "x" }, "unexpected error in 'handling notification'")
    expect(lines).toEqual([
      ["debug", "baileys: error in validating connection"],
      ["debug", "baileys: stream errored out"],
      ["error", "baileys: unexpected error in 'handling notification'"],
    ])
  })

  test("boundedCache forgets the oldest entry past its size", () => {
    const cache = boundedCache(2)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("a", 3)
    cache.set("c", 4)
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([3, undefined, 4])
    cache.del("a")
    expect(cache.get("a")).toBeUndefined()
    cache.flushAll()
    expect(cache.get("c")).toBeUndefined()
  })
})

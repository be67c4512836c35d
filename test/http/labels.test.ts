import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { Chat, Label, LabelList } from "../../src/http/models/chats"
import type { Environment } from "../../src/lib/vocabulary"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf } from "../live/live-helpers"

/* GET /v1/labels, POST /v1/labels and PUT /v1/chats/{chatId}/labels (docs/api.md § "Labels"). */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+14155550166"
const enc = encodeURIComponent

const createLabel = (key: string, phone: PhoneRow, name: string, color: number) => h.request("POST", "/v1/labels", { key, body: { fromPhoneId: phone.phoneNumber, name, color } })
const setLabels = (key: string, phone: PhoneRow, chatId: string, labels: unknown) =>
  h.request("PUT", `/v1/chats/${enc(chatId)}/labels`, { key, body: { fromPhoneId: phone.phoneNumber, labels } })
const labelsOf = (key: string, phone: PhoneRow) => h.request("GET", `/v1/labels?fromPhoneId=${enc(phone.phoneNumber)}`, { key })

/** Opens a chat with Alice as a sandbox send (test keys) or a live send (live keys) would. */
async function openChat(key: string, phone: PhoneRow): Promise<void> {
  const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: ALICE, content: "hello" } })
  expect(res.status).toBe(201)
}

async function watchChatUpdates(accountId: string, env: Environment): Promise<void> {
  await createEndpoint(h.services.ctx, { accountId, env, url: "http://127.0.0.1:9/unused", events: ["*"] })
}

describe("success", () => {
  test("test keys create labels on the sandbox phone: 201 with ids counted up, listed by GET /v1/labels", async () => {
    const { key, phone } = await h.seedTenant()
    const paid = await createLabel(key, phone, "Paid", 3)
    expect(paid.status).toBe(201)
    expectSchema(Label, paid.body.data)
    expect(paid.body.data).toEqual({ id: "1", name: "Paid", color: 3 })
    expect((await createLabel(key, phone, "  Follow up ", 19)).body.data).toEqual({ id: "2", name: "Follow up", color: 19 })
    const list = await labelsOf(key, phone)
    expect(list.status).toBe(200)
    expectSchema(LabelList, list.body.data)
    expect(list.body.data.labels).toEqual([{ id: "1", name: "Paid", color: 3 }, { id: "2", name: "Follow up", color: 19 }])
  })

  test("a new label never takes the id of a label the phone deleted", async () => {
    const { key, phone } = await h.seedTenant()
    await h.services.ctx.store.write((q) => q.upsertLabel({ phoneId: phone.id, env: "test", labelId: "7", name: "Old", color: 1, deleted: true, updatedAtMs: h.clock.nowMs() }))
    expect((await createLabel(key, phone, "New", 2)).body.data.id).toBe("8")
  })

  test("PUT sets a sandbox chat's labels as a whole and emits chat.updated only when they changed", async () => {
    const { account, key, phone } = await h.seedTenant()
    await watchChatUpdates(account.id, "test")
    await openChat(key, phone)
    await createLabel(key, phone, "Paid", 3)
    await createLabel(key, phone, "VIP", 5)
    const res = await setLabels(key, phone, ALICE, ["2", "1"])
    expect(res.status).toBe(200)
    expectSchema(Chat, res.body.data)
    expect(res.body.data).toMatchObject({ id: ALICE, labels: ["2", "1"] })
    expect((await setLabels(key, phone, ALICE, ["1", "2"])).status).toBe(200)
    expect((await setLabels(key, phone, ALICE, ["1"])).body.data.labels).toEqual(["1"])
    expect((await setLabels(key, phone, ALICE, [])).body.data.labels).toEqual([])
    const chats = await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}`, { key })
    expect(chats.body.data.chats[0].labels).toEqual([])
    expect(eventsOf(h, "chat.updated").map((e) => e.data.changes)).toEqual([{ labels: ["2", "1"] }, { labels: ["1"] }, { labels: [] }])
  })
})

describe("bad input", () => {
  test("a colour outside 0..19, an empty, blank or too long name and unknown fields are 400", async () => {
    const { key, phone } = await h.seedTenant()
    for (const [name, color] of [["Paid", 20], ["Paid", -1], ["Paid", 2.5], ["Paid", "3"], ["", 3], ["   ", 3], ["x".repeat(101), 3], ["Paid\nnow", 3], ["Paid\u0000", 3]] as const) {
      expectErrorEnvelope(await createLabel(key, phone, name, color as number), 400, "Bad Request")
    }
    expectErrorEnvelope(await h.request("POST", "/v1/labels", { key, body: { fromPhoneId: phone.phoneNumber, name: "Paid", color: 1, id: "9" } }), 400, "Bad Request")
    expect((await createLabel(key, phone, "x".repeat(100), 0)).status).toBe(201)
    expect((await labelsOf(key, phone)).body.data.labels).toHaveLength(1)
  })

  test("PUT with a label id the phone does not have is 400 and changes nothing; repeated or malformed ids are 400", async () => {
    const { account, key, phone } = await h.seedTenant()
    await watchChatUpdates(account.id, "test")
    await openChat(key, phone)
    await createLabel(key, phone, "Paid", 3)
    const [message] = expectErrorEnvelope(await setLabels(key, phone, ALICE, ["1", "9"]), 400, "Bad Request")
    expect(message).toContain("labels: 9 is not a label of this phone")
    expectErrorEnvelope(await setLabels(key, phone, ALICE, ["1", "1"]), 400, "Bad Request")
    expectErrorEnvelope(await setLabels(key, phone, ALICE, ["Paid"]), 400, "Bad Request")
    expectErrorEnvelope(await setLabels(key, phone, ALICE, "1"), 400, "Bad Request")
    expect(eventsOf(h, "chat.updated")).toEqual([])
  })

  test("GET without fromPhoneId or with an unknown parameter is 400", async () => {
    const { key, phone } = await h.seedTenant()
    expectErrorEnvelope(await h.request("GET", "/v1/labels", { key }), 400, "Bad Request")
    expectErrorEnvelope(await h.request("GET", `/v1/labels?fromPhoneId=${enc(phone.phoneNumber)}&color=3`, { key }), 400, "Bad Request")
  })

  test("PUT on a chat the phone does not have is 404; a malformed chat id is 400", async () => {
    const { key, phone } = await h.seedTenant()
    expectErrorEnvelope(await setLabels(key, phone, ALICE, []), 404, "Not Found")
    expectErrorEnvelope(await setLabels(key, phone, "not-a-chat", []), 400, "Bad Request")
  })
})

describe("security", () => {
  test("another account's phone is 404 on every label route, and nothing is made there", async () => {
    const mine = await h.seedTenant()
    const other = await h.seedTenant()
    await openChat(other.key, other.phone)
    expectErrorEnvelope(await labelsOf(mine.key, other.phone), 404, "Not Found")
    expectErrorEnvelope(await createLabel(mine.key, other.phone, "Mine", 1), 404, "Not Found")
    expectErrorEnvelope(await setLabels(mine.key, other.phone, ALICE, []), 404, "Not Found")
    expect((await labelsOf(other.key, other.phone)).body.data.labels).toEqual([])
  })

  test("a live key sees none of the sandbox's labels on the same phone, and a test key none of the live ones", async () => {
    const { account, key, phone } = await h.seedTenant()
    await createLabel(key, phone, "Sandbox", 1)
    await h.services.ctx.store.write((q) => q.upsertLabel({ phoneId: phone.id, env: "live", labelId: "4", name: "Live", color: 2, deleted: false, updatedAtMs: h.clock.nowMs() }))
    const live = await h.seedKey(account.id, { env: "live" })
    expect((await labelsOf(live, phone)).body.data.labels).toEqual([{ id: "4", name: "Live", color: 2 }])
    expect((await labelsOf(key, phone)).body.data.labels).toEqual([{ id: "1", name: "Sandbox", color: 1 }])
    await openChat(key, phone)
    // The live label is not one of the sandbox phone's.
    expectErrorEnvelope(await setLabels(key, phone, ALICE, ["4"]), 400, "Bad Request")
  })
})

describe("live keys", () => {
  async function liveTenant(business: boolean) {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    await watchChatUpdates(account.id, "live")
    await h.connectPhone(phone)
    h.gateway.current(phone.id).business = business
    return { account, phone, live }
  }

  test("on a WhatsApp Business phone POST writes the label to WhatsApp's app state, then records it", async () => {
    const { phone, live } = await liveTenant(true)
    const res = await createLabel(live, phone, "Paid", 3)
    expect([res.status, res.body.data]).toEqual([201, { id: "1", name: "Paid", color: 3 }])
    expect(h.gateway.current(phone.id).labelWrites).toEqual([{ kind: "label", labelId: "1", name: "Paid", color: 3 }])
    expect((await labelsOf(live, phone)).body.data.labels).toEqual([{ id: "1", name: "Paid", color: 3 }])
  })

  test("PUT writes each label put on and taken off to WhatsApp's app state, then updates the chat with one chat.updated", async () => {
    const { phone, live } = await liveTenant(true)
    await openChat(live, phone)
    await createLabel(live, phone, "Paid", 3)
    await createLabel(live, phone, "VIP", 5)
    await setLabels(live, phone, ALICE, ["1"])
    const res = await setLabels(live, phone, ALICE, ["2"])
    expect(res.body.data.labels).toEqual(["2"])
    const jid = "14155550166@s.whatsapp.net"
    expect(h.gateway.current(phone.id).labelWrites.filter((w) => w.kind === "chat")).toEqual([
      { kind: "chat", chatJid: jid, labelId: "1", labeled: true },
      { kind: "chat", chatJid: jid, labelId: "2", labeled: true },
      { kind: "chat", chatJid: jid, labelId: "1", labeled: false },
    ])
    expect(eventsOf(h, "chat.updated").map((e) => e.data.changes)).toEqual([{ labels: ["1"] }, { labels: ["2"] }])
  })

  test("a phone that is not a WhatsApp Business account is 409 on POST and PUT, and nothing is written", async () => {
    const { phone, live } = await liveTenant(false)
    await openChat(live, phone)
    const [message] = expectErrorEnvelope(await createLabel(live, phone, "Paid", 3), 409, "Conflict")
    expect(message).toContain("is not a WhatsApp Business account")
    expectErrorEnvelope(await setLabels(live, phone, ALICE, []), 409, "Conflict")
    expect(h.gateway.current(phone.id).labelWrites).toEqual([])
    expect((await labelsOf(live, phone)).body.data.labels).toEqual([])
  })

  test("when WhatsApp does not take the label, POST is 502 and nothing is recorded", async () => {
    const { phone, live } = await liveTenant(true)
    h.gateway.current(phone.id).labelWriteError = new Error("App state key not present!")
    const [message] = expectErrorEnvelope(await createLabel(live, phone, "Paid", 3), 502, "Bad Gateway")
    expect(message).toContain("could not be written to WhatsApp's app state")
    expect((await labelsOf(live, phone)).body.data.labels).toEqual([])
  })

  test("when WhatsApp does not take a chat label, PUT is 502 and the chat and events stay as they were", async () => {
    const { phone, live } = await liveTenant(true)
    await openChat(live, phone)
    await createLabel(live, phone, "Paid", 3)
    h.gateway.current(phone.id).labelWriteError = new Error("App state key not present!")
    expectErrorEnvelope(await setLabels(live, phone, ALICE, ["1"]), 502, "Bad Gateway")
    const chats = await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}`, { key: live })
    expect(chats.body.data.chats[0].labels).toEqual([])
    expect(eventsOf(h, "chat.updated")).toEqual([])
  })
})

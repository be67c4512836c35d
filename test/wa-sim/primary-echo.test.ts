import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Agent } from "node:https"
import { downloadMediaMessage, normalizeMessageContent, proto, type WAMessage } from "@whiskeysockets/baileys"
import { pairWithQr, type TestClient } from "./baileys-client"
import { historyChunks, historyTotals } from "./history-builder"
import { edit, reaction, revoke } from "./inbound-kinds"
import { trustMediaHostInFetch } from "./media-trust"
import { startWaSim, type WaSim } from "./sim"
import { TestCa } from "./test-ca"
import { startTlsFront, type TlsFront } from "./tls-front"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Everything under test/wa-sim gets the simulator's timeout: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * What the user types on the phone, as unmodified Baileys 7.0.0-rc14 receives it on a linked
 * device (README.md, "Messages sent from the phone"), over plain WebSocket and, like production,
 * through the TLS front.
 */

const ME = "+15550001111"

let sim: WaSim
let client: TestClient
let restoreMainFetch: () => void
const ends: TestClient[] = []

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  restoreMainFetch = trustMediaHostInFetch(sim)
  const paired = await pairWithQr(sim, ME)
  client = paired.client
  ends.push(paired.first, paired.client)
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  for (const each of ends) await each.end()
  restoreMainFetch()
  await sim.stop()
}, SLOW_HOOK_TIMEOUT_MS)

const upserted = (on: TestClient, id: string): Promise<WAMessage> =>
  on.waitFor(() => on.upserts.find((entry) => entry.message.key.id === id)?.message, `the upsert of ${id}`)

describe("a message typed on the phone to a contact", () => {
  test("arrives from our own number, fromMe, in the contact's chat, with the contact's LID beside it", async () => {
    const alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice" })
    const id = await sim.sendFromPrimary(ME, { to: alice, message: { text: "see you at 5" } })
    const message = await upserted(client, id)
    expect(message.key).toMatchObject({ remoteJid: alice.pnJid, remoteJidAlt: alice.lidJid, fromMe: true, id })
    expect(message.message?.conversation).toBe("see you at 5")
    expect(message.message?.deviceSentMessage).toBeFalsy()
    // The device tells the server it has the message the phone sent (a `sender` receipt, as for any own-device copy).
    const receipt = await sim.waitFor(() => sim.clientStanzas.retained.find(({ node }) => node.tag === "receipt" && node.attrs.id === id)?.node, `the receipt of ${id}`)
    expect(receipt.attrs.type).toBe("sender")
  })

  test("to a contact the phone addresses by LID arrives in the LID chat, with the number beside it", async () => {
    const bob = sim.contact({ phoneNumber: "+15550003333", name: "Bob", addressing: "lid" })
    const id = await sim.sendFromPrimary(ME, { to: bob, message: { text: "hello by LID" } })
    const message = await upserted(client, id)
    expect(message.key).toMatchObject({ remoteJid: bob.lidJid, remoteJidAlt: bob.pnJid, fromMe: true })
    expect(message.message?.conversation).toBe("hello by LID")
  })

  test("a photo sent from the phone arrives with a descriptor the device downloads", async () => {
    const fay = sim.contact({ phoneNumber: "+15550008888", name: "Fay" })
    const photo = new Uint8Array(4_000).map((_, i) => (i * 31) % 256)
    const id = await sim.sendFromPrimary(ME, { to: fay, message: { image: photo, caption: "the receipt" } })
    const message = await upserted(client, id)
    expect(message.message?.imageMessage?.caption).toBe("the receipt")
    const bytes = await downloadMediaMessage(message, "buffer", {})
    expect(new Uint8Array(bytes)).toEqual(photo)
  })

  test("an edit, a reaction and a deletion made on the phone reach the device as changes to our own message", async () => {
    const gus = sim.contact({ phoneNumber: "+15550009999", name: "Gus" })
    const id = await sim.sendFromPrimary(ME, { to: gus, message: { text: "meet at 5" } })
    await upserted(client, id)
    const mine = { remoteJid: gus.pnJid, id, fromMe: true }
    const edited = await upserted(client, await sim.sendFromPrimary(ME, { to: gus, message: edit(mine, "meet at 6", Date.now()) }))
    expect(normalizeMessageContent(edited.message)?.protocolMessage?.editedMessage?.conversation).toBe("meet at 6")
    const reacted = await upserted(client, await sim.sendFromPrimary(ME, { to: gus, message: reaction(mine, "👍", Date.now()) }))
    expect(reacted.message?.reactionMessage).toMatchObject({ text: "👍", key: { id, fromMe: true } })
    await sim.sendFromPrimary(ME, { to: gus, message: revoke(mine) })
    const update = await client.waitFor(() => client.messageUpdates.find((entry) => entry.key.id === id && entry.update.messageStubType === proto.WebMessageInfo.StubType.REVOKE), "the deletion")
    expect(update.key).toMatchObject({ remoteJid: gus.pnJid, fromMe: true })
  })

  test("a second message decrypts on the session the first one opened", async () => {
    const carol = sim.contact({ phoneNumber: "+15550004444", name: "Carol" })
    await upserted(client, await sim.sendFromPrimary(ME, { to: carol, message: { text: "one" } }))
    const second = await upserted(client, await sim.sendFromPrimary(ME, { to: carol, message: { text: "two" } }))
    expect(second.message?.conversation).toBe("two")
    expect(second.messageStubType).toBeFalsy()
  })
})

describe("a message typed on the phone in a group", () => {
  test.each(["pn", "lid"] as const)("arrives from the group with us as participant (%s group)", async (addressing) => {
    const dan = sim.contact({ phoneNumber: addressing === "pn" ? "+15550005555" : "+15550006666", name: "Dan" })
    const team = sim.group({ subject: `Team ${addressing}`, members: [dan], addressing })
    const account = sim.primary(ME).account
    const id = await sim.sendFromPrimary(ME, { to: team, message: { text: `hi team (${addressing})` } })
    const message = await upserted(client, id)
    expect(message.key).toMatchObject({ remoteJid: team.jid, fromMe: true, participant: addressing === "pn" ? account.pnJid : account.lidJid })
    expect(message.message?.conversation).toBe(`hi team (${addressing})`)
  })
})

describe("over the TLS front, as in production", () => {
  let front: TlsFront
  let ca: TestCa
  let tlsSim: WaSim
  let restoreFetch: () => void

  beforeAll(async () => {
    tlsSim = await startWaSim({ advSecretRotation: false })
    restoreFetch = trustMediaHostInFetch(tlsSim)
    ca = await TestCa.create()
    front = await startTlsFront({ upstreamUrl: tlsSim.wsUrl, certificate: await ca.issue() })
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    restoreFetch()
    await front.stop()
    await tlsSim.stop()
    await ca.dispose()
  }, SLOW_HOOK_TIMEOUT_MS)

  test("a device paired through wss gets its history and then the phone's own messages", async () => {
    const account = tlsSim.primary(ME).account
    const world = { me: { phoneNumber: account.phoneNumber, lid: account.lid }, nowMs: Date.now(), chats: 10, messages: 200, messagesPerChunk: 50 }
    tlsSim.history.onLink(ME, () => ({ chunks: historyChunks(world) }))
    const paired = await pairWithQr(tlsSim, ME, { waWebSocketUrl: front.wsUrl, agent: new Agent({ ca: ca.caPem }), shouldSyncHistoryMessage: () => true, syncFullHistory: true })
    ends.push(paired.first, paired.client)
    const tls = paired.client
    expect(front.upgrades.length).toBeGreaterThanOrEqual(2)
    await tlsSim.history.automatic[0]
    const total = historyTotals(world).messages
    await tls.waitFor(() => (new Set(tls.historySets.flatMap((set) => set.messages.map((m) => m.key.id))).size === total ? true : undefined), `${total} history messages`, 20_000)
    expect(tls.historySets.at(-1)?.syncType).toBe(proto.HistorySync.HistorySyncType.FULL)
    const erin = tlsSim.contact({ phoneNumber: "+15550007777", name: "Erin" })
    const id = await tlsSim.sendFromPrimary(ME, { to: erin, message: { text: "typed on the phone" } })
    expect((await upserted(tls, id)).key).toMatchObject({ remoteJid: erin.pnJid, fromMe: true })
  })
})

import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { getBinaryNodeChild } from "@whiskeysockets/baileys"
import { pairWithQr, simSocketConfig, TestClient } from "./baileys-client"
import { startWaSim, type WaSim, type WaSimOptions } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * The simulator's offline queue, contacts with two devices and privacy tokens against real,
 * unmodified Baileys 7 (no wagate), so the shapes the README cites are what Baileys acts on.
 */

const ME = "+15550001111"

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups.length = 0
}, SLOW_HOOK_TIMEOUT_MS)

async function world(options: WaSimOptions = {}) {
  // Baileys 7.0.0-rc14 alone cannot pair through a secret rotation (sim.test.ts, "secret rotation").
  const sim = await startWaSim({ advSecretRotation: false, ...options })
  cleanups.push(() => sim.stop())
  const paired = await pairWithQr(sim, ME)
  cleanups.push(() => paired.first.end(), () => paired.client.end())
  return { sim, ...paired }
}

/** The texts of the messages a client upserted from others, with the upsert type. */
function inboundTexts(client: TestClient): [string, string][] {
  return client.upserts.filter((entry) => !entry.message.key.fromMe && entry.message.message?.conversation).map((entry) => [entry.type, entry.message.message!.conversation!])
}

/** True once the server's ack of a message carried error 463. */
function refusedWith463(client: TestClient, id: string): true | undefined {
  return client.serverAcks.some((ack) => ack.attrs.id === id && ack.attrs.error === "463") ? true : undefined
}

describe("wa-sim: offline queue", () => {
  test("what a device missed while away arrives on its next login: preview, Baileys asks for the batch, the stanzas marked offline in order, then the marker", async () => {
    const { sim, auth, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550002222", autoReceipts: "none" })
    const sent = await client.sock.sendMessage(alice.pnJid, { text: "see you" })
    await client.waitForOwnUpsert(sent!.key.id!)
    await client.end()
    await sim.waitFor(() => (sim.loggedInConnections(ME).length === 0 ? true : undefined), "the device to be away")

    sim.deliver(sent!.key.id!, alice)
    for (const text of ["one", "two", "three"]) await sim.sendInbound(alice, { text }, { to: ME })
    expect(sim.heldFor(ME, 1)).toBe(5) // the receipt, the privacy token, three messages

    const back = new TestClient(simSocketConfig(sim, auth), auth)
    cleanups.push(() => back.end())
    await back.waitForOpen()
    await back.waitFor(() => (inboundTexts(back).length === 3 ? true : undefined), "three offline messages")
    expect(inboundTexts(back)).toEqual([
      ["append", "one"],
      ["append", "two"],
      ["append", "three"],
    ])
    await back.waitFor(() => (back.connectionUpdates.some((update) => update.receivedPendingNotifications) ? true : undefined), "receivedPendingNotifications")
    await back.waitFor(() => ((back.highestStatusOf(sent!.key.id!) ?? 0) >= 3 ? true : undefined), "the held delivery receipt")
    const connectionId = sim.loggedInConnections(ME)[0]!.id
    const batch = sim.clientStanzas.retained.find((entry) => entry.connectionId === connectionId && getBinaryNodeChild(entry.node, "offline_batch"))
    expect(batch?.node.tag).toBe("ib")
    expect(sim.heldFor(ME, 1)).toBe(0)
  })

  test("offlineQueue: false: nothing is held, a message to an account with no device connected throws", async () => {
    const { sim, client } = await world({ offlineQueue: false })
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    await client.end()
    await sim.waitFor(() => (sim.loggedInConnections(ME).length === 0 ? true : undefined), "the device to be away")
    await expect(sim.sendInbound(alice, { text: "anyone?" }, { to: ME })).rejects.toThrow("no device of 15550001111 is connected")
    expect(sim.heldFor(ME, 1)).toBe(0)
  })
})

describe("wa-sim: a contact with two devices", () => {
  test("Baileys encrypts a copy per device, each device decrypts its own, and a receipt from either device reaches Baileys", async () => {
    const { sim, client } = await world()
    const duo = sim.contact({ phoneNumber: "+15550002222", otherDevices: [1], autoReceipts: "none" })
    const sent = await client.sock.sendMessage(duo.pnJid, { text: "both of you" })
    const received = await sim.nextMessage(duo)
    expect(received.copies.map((copy) => [copy.deviceId, copy.message.conversation ?? copy.message.extendedTextMessage?.text])).toEqual([
      [0, "both of you"],
      [1, "both of you"],
    ])
    await client.waitForOwnUpsert(sent!.key.id!)
    sim.read(received.id, duo, { device: 1 })
    await client.waitFor(() => (client.highestStatusOf(sent!.key.id!) === 4 ? true : undefined), "the read receipt from device 1")
    expect(() => sim.deliver(received.id, duo, { device: 2 })).toThrow("has no device 2")
  })
})

describe("wa-sim: privacy tokens and error 463", () => {
  test("a contact's first message brings its token, which Baileys attaches; under a reach-out lock a send without it gets 463, one with it goes through unless the lock refuses all", async () => {
    const { sim, client } = await world()
    const friend = sim.contact({ phoneNumber: "+15550002222" })
    const stranger = sim.contact({ phoneNumber: "+15550003333" })
    await sim.sendInbound(friend, { text: "hi" }, { to: ME })
    await client.waitFor(() => (inboundTexts(client).length === 1 ? true : undefined), "the friend's message")

    sim.lockReachout(ME)
    const warm = await client.sock.sendMessage(friend.pnJid, { text: "hello friend" })
    const toFriend = await sim.nextMessage(friend)
    expect(getBinaryNodeChild(toFriend.stanza, "tctoken")).toBeDefined()
    const cold = await client.sock.sendMessage(stranger.pnJid, { text: "hello stranger" })
    await client.waitFor(() => refusedWith463(client, cold!.key.id!), "the 463 error ack")
    expect(sim.refusals.retained.at(-1)).toEqual({ id: cold!.key.id!, to: stranger.pnJid, carriedToken: false })

    sim.lockReachout(ME, "always")
    const refused = await client.sock.sendMessage(friend.pnJid, { text: "still there?" })
    await client.waitFor(() => refusedWith463(client, refused!.key.id!), "the 463 despite the token")
    expect(sim.refusals.retained.at(-1)).toMatchObject({ to: friend.pnJid, carriedToken: true })
    expect(refusedWith463(client, warm!.key.id!)).toBeUndefined()
  })

  test("privacyTokens: false: no token is issued, so none is attached", async () => {
    const { sim, client } = await world({ privacyTokens: false })
    const friend = sim.contact({ phoneNumber: "+15550002222" })
    await sim.sendInbound(friend, { text: "hi" }, { to: ME })
    await client.waitFor(() => (inboundTexts(client).length === 1 ? true : undefined), "the friend's message")
    await client.sock.sendMessage(friend.pnJid, { text: "hello friend" })
    expect(getBinaryNodeChild((await sim.nextMessage(friend)).stanza, "tctoken")).toBeUndefined()
  })
})

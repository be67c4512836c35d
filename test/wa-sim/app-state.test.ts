import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { ALL_WA_PATCH_NAMES, encodeSyncdPatch, getBinaryNodeChild, newLTHashState, proto, type BinaryNode } from "@whiskeysockets/baileys"
import { pairWithQr, simSocketConfig, TestClient, type MemoryAuth } from "./baileys-client"
import { AppStateEvents } from "./app-state-events"
import { routeWhatsAppMediaHost } from "./app-state-sync"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * App-state sync against real, unmodified Baileys 7.0.0-rc14 (test/wa-sim/README.md, "App-state
 * sync"): the key share after pairing, fetching collections, `server_sync`, and Baileys'
 * `chatModify` patches verified and applied by the simulator.
 */

const ME = "+15550001111"
const ALICE = "15550002222@s.whatsapp.net"
const BOB = "15550003333@s.whatsapp.net"
const TEAM = "120363000000000001@g.us"

let cleanups: (() => unknown)[] = []
beforeEach(() => {
  cleanups = []
})
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
}, SLOW_HOOK_TIMEOUT_MS)

async function simulator(): Promise<WaSim> {
  const sim = await startWaSim({ advSecretRotation: false })
  cleanups.push(() => sim.stop())
  return sim
}

/** A paired device of ME with its event recorder, after the phone's key share landed. */
async function device(sim: WaSim): Promise<{ auth: MemoryAuth; client: TestClient; events: AppStateEvents }> {
  const { auth, first, client } = await pairWithQr(sim, ME)
  cleanups.push(() => first.end(), () => client.end())
  const events = new AppStateEvents(client.sock)
  await events.waitFor(() => events.keyId, "the app-state key share")
  return { auth, client, events }
}

/** What Baileys does with the key when it did not sync itself (whatsmeow's `handleAppStateSyncKeyShare` fetches every collection). */
async function syncAll(client: TestClient): Promise<void> {
  await client.sock.resyncAppState(ALL_WA_PATCH_NAMES, false)
}

/** Sends one raw patch upload and returns the `<collection>` the server answered. */
async function upload(client: TestClient, name: string, version: number, patch: proto.ISyncdPatch): Promise<BinaryNode> {
  const answer = await client.sock.query({
    tag: "iq",
    attrs: { to: "s.whatsapp.net", type: "set", xmlns: "w:sync:app:state" },
    content: [{ tag: "sync", attrs: {}, content: [{ tag: "collection", attrs: { name, version: String(version), return_snapshot: "false" }, content: [{ tag: "patch", attrs: {}, content: proto.SyncdPatch.encode(patch).finish() }] }] }],
  })
  return getBinaryNodeChild(getBinaryNodeChild(answer, "sync"), "collection")!
}

/** Baileys' own encoding of an archive patch on a fresh state, with the key it got from the phone. */
async function archivePatch(auth: MemoryAuth, keyId: string, chat: string): Promise<proto.ISyncdPatch> {
  const getKey = async (id: string) => (await auth.keys.get("app-state-sync-key", [id]))[id]
  const { patch } = await encodeSyncdPatch(
    { syncAction: { archiveChatAction: { archived: true } }, index: ["archive", chat], type: "regular_low", apiVersion: 3, operation: proto.SyncdMutation.SyncdOperation.SET },
    keyId,
    newLTHashState(),
    getKey,
  )
  return patch
}

describe("wa-sim app state: key share and sync", () => {
  test("after pairing the phone shares its app-state key: Baileys stores it and sets myAppStateKeyId", async () => {
    const sim = await simulator()
    const { auth, events } = await device(sim)
    const state = sim.appState.of(sim.primary(ME).account)
    expect(events.keyId).toBe(state.keyId.toString("base64"))
    const stored = (await auth.keys.get("app-state-sync-key", [events.keyId!]))[events.keyId!]
    expect(Buffer.from(stored!.keyData!).equals(state.keyData)).toBe(true)
  })

  test("without the key share Baileys never learns the key and cannot write app state", async () => {
    const sim = await simulator()
    sim.appState.keyShare = false
    const { first, client } = await pairWithQr(sim, ME)
    cleanups.push(() => first.end(), () => client.end())
    // A message sent after the key upload arrives after any key share would have.
    const alice = sim.contact({ phoneNumber: ALICE.split("@")[0]! })
    await sim.waitFor(() => sim.clientStanzas.retained.find((entry) => entry.node.attrs.xmlns === "encrypt" && entry.node.attrs.type === "set"), "the key upload")
    const id = await sim.sendInbound(alice, { text: "hello" })
    await client.waitFor(() => client.upserts.find((entry) => entry.message.key.id === id), "alice's message")
    expect(client.sock.authState.creds.myAppStateKeyId).toBeUndefined()
    await expect(client.sock.chatModify({ pin: true }, ALICE)).rejects.toThrow("App state key not present")
  })

  test("a device syncs what the phone set before it linked: archive, pin, mute, unread, contacts with names and LIDs, labels", async () => {
    const sim = await simulator()
    const phone = sim.phoneAppState(ME)
    phone.archive(ALICE)
    phone.pin(BOB)
    phone.mute(TEAM, 1_900_000_000_000)
    phone.markRead(BOB, false)
    phone.contact(ALICE, "Alice Liddell")
    phone.contact(BOB, { fullName: "Bob Builder", firstName: "Bob", lidJid: "200000000000042@lid" })
    phone.label("3", "New customer", 2)
    phone.labelChat("3", ALICE)
    phone.pushName("Corner Shop")
    const { client, events } = await device(sim)
    await syncAll(client)

    await events.waitFor(() => (events.labelAssociations.length > 0 && events.contactName(BOB) && events.chat(TEAM).muteEndTime ? true : undefined), "every event of the sync")
    expect(events.chat(ALICE)).toMatchObject({ archived: true })
    expect(events.chat(BOB).pinned).toBeGreaterThan(0)
    expect(events.chat(BOB).unreadCount).toBe(-1)
    expect(events.chat(TEAM).muteEndTime).toBe(1_900_000_000_000)
    expect(events.contactName(ALICE)).toBe("Alice Liddell")
    expect(events.contacts.find((contact) => contact.id === BOB)).toMatchObject({ name: "Bob Builder", lid: "200000000000042@lid" })
    expect(events.labelEdits).toContainEqual(expect.objectContaining({ id: "3", name: "New customer", color: 2 }))
    expect(events.labelAssociations).toContainEqual({ type: "add", association: { type: "label_jid", chatId: ALICE, labelId: "3" } })
    expect(client.sock.authState.creds.me?.name).toBe("Corner Shop")
  })

  test("a snapshot on the media host brings a fresh device to the collection's state", async () => {
    const sim = await simulator()
    sim.appState.snapshots = true
    cleanups.push(routeWhatsAppMediaHost(sim.media))
    const phone = sim.phoneAppState(ME)
    phone.archive(ALICE)
    phone.archive(ALICE, false)
    phone.archive(BOB)
    const stored = sim.media.stored.length
    const { client, events } = await device(sim)
    await syncAll(client)
    await events.waitFor(() => (events.chat(BOB).archived ? true : undefined), "bob's chat archived")
    // The snapshot holds the state (Alice's chat unarchived), not the history of patches.
    expect(events.chat(ALICE).archived).toBe(false)
    expect(sim.media.stored.length).toBeGreaterThan(stored)
    expect(client.sock.authState.creds.myAppStateKeyId).toBeDefined()
    const version = (await client.sock.authState.keys.get("app-state-sync-version", ["regular_low"])).regular_low?.version
    expect(version).toBe(3)
    // The device's LT hash agrees with the server's: its next patch verifies.
    await client.sock.chatModify({ pin: true }, BOB)
    expect(sim.phoneAppState(ME).refusals).toEqual([])
    expect(sim.phoneAppState(ME).version("regular_low")).toBe(4)
  })

  test("a change made on the phone reaches a connected device through server_sync", async () => {
    const sim = await simulator()
    const { client, events } = await device(sim)
    await syncAll(client)
    sim.phoneAppState(ME).archive(ALICE)
    await events.waitFor(() => (events.chat(ALICE).archived ? true : undefined), "chats.update archived after server_sync")
    sim.phoneAppState(ME).contact(BOB, "Bob from the bakery")
    await events.waitFor(() => events.contactName(BOB), "contacts.upsert after server_sync")
    expect(events.contactName(BOB)).toBe("Bob from the bakery")
    // Having applied the phone's patches, the device writes on top of them and the server accepts it.
    await client.sock.chatModify({ pin: true }, ALICE)
    expect(sim.phoneAppState(ME).refusals).toEqual([])
    expect(sim.phoneAppState(ME).chat(ALICE)).toMatchObject({ archived: true, pinned: true })
  })
})

describe("wa-sim app state: many patches", () => {
  test("more patches than one answer holds come over several answers (has_more_patches) and all apply", async () => {
    const sim = await simulator()
    const phone = sim.phoneAppState(ME)
    const chats = Array.from({ length: 120 }, (_, i) => `1555010${String(i).padStart(4, "0")}@s.whatsapp.net`)
    for (const chat of chats) phone.archive(chat)
    const { client, events } = await device(sim)
    await syncAll(client)
    await events.waitFor(() => (chats.every((chat) => events.chat(chat).archived) ? true : undefined), "all 120 chats archived")
    const version = (await client.sock.authState.keys.get("app-state-sync-version", ["regular_low"])).regular_low?.version
    expect(version).toBe(120)
  })
})

describe("wa-sim app state: a device that was away", () => {
  test("a change made on the phone while the device was away arrives with its next login and syncs", async () => {
    const sim = await simulator()
    const { auth, client } = await device(sim)
    await syncAll(client)
    await client.end()
    sim.phoneAppState(ME).mute(ALICE, -1)
    expect(sim.heldFor(ME, 1)).toBe(1)
    const reloaded = auth.reload()
    const again = new TestClient(simSocketConfig(sim, reloaded), reloaded)
    cleanups.push(() => again.end())
    const events = new AppStateEvents(again.sock)
    await again.waitForOpen()
    await events.waitFor(() => events.chat(ALICE).muteEndTime ?? undefined, "the mute after the held server_sync")
    expect(events.chat(ALICE).muteEndTime).toBe(-1)
  })
})

describe("wa-sim app state: removals", () => {
  test("a contact the phone deletes is a REMOVE both sides take out of the LT hash: the device's next patch still verifies", async () => {
    const sim = await simulator()
    const phone = sim.phoneAppState(ME)
    phone.contact(ALICE, "Alice Liddell")
    phone.contact(BOB, "Bob Builder")
    phone.contact(ALICE, null)
    const { client, events } = await device(sim)
    await syncAll(client)
    await events.waitFor(() => events.contactName(BOB), "bob's name")
    expect(phone.contactOf(ALICE)).toBeUndefined()
    expect(events.contactName(ALICE)).toBeUndefined()
    await client.sock.chatModify({ contact: { fullName: "Alice L." } }, ALICE)
    expect(phone.refusals).toEqual([])
    expect(phone.contactOf(ALICE)?.fullName).toBe("Alice L.")
    expect(phone.version("critical_unblock_low")).toBe(4)
  })
})

describe("wa-sim app state: patches Baileys writes", () => {
  test("chatModify archive, pin, mute and markRead are verified, applied and readable on the server", async () => {
    const sim = await simulator()
    const { client } = await device(sim)
    const phone = sim.phoneAppState(ME)
    await client.sock.chatModify({ archive: true, lastMessages: [] }, ALICE)
    await client.sock.chatModify({ pin: true }, BOB)
    await client.sock.chatModify({ mute: 1_900_000_000_000 }, TEAM)
    await client.sock.chatModify({ markRead: false, lastMessages: [] }, BOB)
    expect(phone.refusals).toEqual([])
    expect(phone.chat(ALICE)).toMatchObject({ archived: true })
    expect(phone.chat(BOB)).toMatchObject({ pinned: true, read: false })
    expect(phone.chat(TEAM).mutedUntil).toBe(1_900_000_000_000)
    expect(phone.version("regular_low")).toBe(3)
    await client.sock.chatModify({ archive: false, lastMessages: [] }, ALICE)
    expect(phone.chat(ALICE).archived).toBe(false)
  })

  test("labels, chat labels, contacts and the push name Baileys writes are applied and readable on the server", async () => {
    const sim = await simulator()
    const { client } = await device(sim)
    const phone = sim.phoneAppState(ME)
    await client.sock.addLabel(ALICE, { id: "7", name: "Paid", color: 4, deleted: false })
    await client.sock.addChatLabel(ALICE, "7")
    await client.sock.addChatLabel(BOB, "7")
    await client.sock.removeChatLabel(BOB, "7")
    await client.sock.addOrEditContact(BOB, { fullName: "Bob Builder", firstName: "Bob" })
    await client.sock.updateProfileName("Corner Shop")
    expect(phone.refusals).toEqual([])
    expect(phone.labels()).toEqual([{ id: "7", name: "Paid", color: 4, deleted: false }])
    expect(phone.chat(ALICE).labels).toEqual(["7"])
    expect(phone.chat(BOB).labels).toEqual([])
    expect(phone.contactOf(BOB)).toMatchObject({ fullName: "Bob Builder", firstName: "Bob" })
    expect(phone.pushNameSetting()).toBe("Corner Shop")
  })

  test("the other device of the account gets server_sync for a device's patch and emits chats.update", async () => {
    const sim = await simulator()
    const one = await device(sim)
    const two = await device(sim)
    await syncAll(two.client)
    await one.client.sock.chatModify({ pin: true }, ALICE)
    await two.events.waitFor(() => two.events.chat(ALICE).pinned ?? undefined, "the second device's chats.update")
    expect(sim.phoneAppState(ME).chat(ALICE).pinned).toBe(true)
  })

  test("a patch whose value MAC does not verify is refused with 400 and changes nothing", async () => {
    const sim = await simulator()
    const { auth, client, events } = await device(sim)
    const patch = await archivePatch(auth, events.keyId!, ALICE)
    const blob = patch.mutations![0]!.record!.value!.blob!
    blob[blob.length - 1]! ^= 0x01
    const answer = await upload(client, "regular_low", 0, patch)
    expect(answer.attrs.type).toBe("error")
    expect(getBinaryNodeChild(answer, "error")?.attrs.code).toBe("400")
    expect(sim.phoneAppState(ME).refusals).toEqual([{ collection: "regular_low", code: 400, reason: "mutation #1: value MAC mismatch" }])
    expect(sim.phoneAppState(ME).chat(ALICE).archived).toBe(false)
    expect(sim.phoneAppState(ME).version("regular_low")).toBe(0)
  })

  test("Baileys holding a wrong key writes patches the server refuses", async () => {
    const sim = await simulator()
    const { auth, client, events } = await device(sim)
    const id = events.keyId!
    await auth.keys.set({ "app-state-sync-key": { [id]: proto.Message.AppStateSyncKeyData.fromObject({ keyData: Buffer.alloc(32, 7) }) } })
    await client.sock.chatModify({ pin: true }, ALICE)
    expect(sim.phoneAppState(ME).refusals.map((refusal) => refusal.code)).toEqual([400])
    expect(sim.phoneAppState(ME).chat(ALICE).pinned).toBe(false)
  })

  test("a patch on a stale version is answered 409 with the patches the sender missed", async () => {
    const sim = await simulator()
    const { auth, client, events } = await device(sim)
    sim.phoneAppState(ME).pin(BOB)
    const answer = await upload(client, "regular_low", 0, await archivePatch(auth, events.keyId!, ALICE))
    expect(getBinaryNodeChild(answer, "error")?.attrs).toMatchObject({ code: "409", text: "conflict" })
    const missed = getBinaryNodeChild(getBinaryNodeChild(answer, "patches"), "patch")
    expect(Number(proto.SyncdPatch.decode(missed!.content as Uint8Array).version?.version)).toBe(1)
    expect(sim.phoneAppState(ME).chat(ALICE).archived).toBe(false)
  })
})

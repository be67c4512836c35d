import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { USyncQuery, USyncUser } from "@whiskeysockets/baileys"
import { pairWithQr, type TestClient } from "./baileys-client"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The simulator's switches for senders with no number, usernames on stanzas and LID changes
 * (README.md § "Usernames, senders with no number and stale LID mappings"), against real,
 * unmodified Baileys 7 with no wagate involved: what Baileys itself makes of each.
 */

const ME = "+15550001111"

let stops: (() => unknown)[] = []
afterEach(async () => {
  for (const stop of stops.reverse()) await stop()
  stops = []
}, SLOW_HOOK_TIMEOUT_MS)

async function world(): Promise<{ sim: WaSim; client: TestClient }> {
  const sim = await startWaSim({ advSecretRotation: false })
  stops.push(() => sim.stop())
  const { first, client } = await pairWithQr(sim, ME)
  stops.push(() => first.end(), () => client.end())
  return { sim, client }
}

describe("wa-sim: a contact with no number, and usernames", () => {
  test("off by default: stanzas carry no username attribute", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550002222", addressing: "lid" })
    const id = await sim.sendInbound(alice, { text: "no username" })
    const upsert = await client.waitFor(() => client.upserts.find((e) => e.message.key.id === id), "the upsert")
    expect(upsert.message.key.remoteJidUsername).toBeUndefined()
  })

  test("1:1: Baileys sees only the LID (no alternate number) and the username; onWhatsApp by the number finds nobody", async () => {
    const { sim, client } = await world()
    const nameless = sim.contact({ phoneNumber: "+15550002223", name: "Nameless", noNumber: true, username: "no.number" })
    const id = await sim.sendInbound(nameless, { text: "hi" })
    const upsert = await client.waitFor(() => client.upserts.find((e) => e.message.key.id === id), "the upsert")
    expect(upsert.message.key).toMatchObject({ remoteJid: nameless.lidJid, remoteJidUsername: "no.number", addressingMode: "lid" })
    expect(upsert.message.key.remoteJidAlt).toBeUndefined()
    expect(await client.sock.onWhatsApp(nameless.phoneNumber)).toEqual([])
  })

  test("group: the member is its LID with no participant_pn, its username is participant_username, and the group lists it without a number", async () => {
    const { sim, client } = await world()
    const nameless = sim.contact({ phoneNumber: "+15550002224", noNumber: true, username: "no.number" })
    const shown = sim.contact({ phoneNumber: "+15550002225" })
    const group = sim.group({ subject: "Mixed", members: [nameless, shown], addressing: "pn" })
    const id = await sim.sendInbound(nameless, { text: "hi group" }, { group })
    const upsert = await client.waitFor(() => client.upserts.find((e) => e.message.key.id === id), "the upsert")
    expect(upsert.message.key).toMatchObject({ remoteJid: group.jid, participant: nameless.lidJid, participantUsername: "no.number" })
    expect(upsert.message.key.participantAlt).toBeUndefined()
    const meta = await client.sock.groupMetadata(group.jid)
    const listed = meta.participants.find((p) => p.id === nameless.lidJid)
    expect(listed).toBeDefined()
    expect(listed!.phoneNumber).toBeUndefined()
    expect(JSON.stringify(meta.participants)).not.toContain(nameless.phoneNumber)
  })
})

describe("wa-sim: a number's account moves to a new LID", () => {
  test("a send under the old mapping is acked with refresh_lid and not delivered; after a usync LID query by number, the next send reaches the new LID", async () => {
    const { sim, client } = await world()
    const moved = sim.contact({ phoneNumber: "+15550002226" })
    await client.sock.sendMessage(moved.pnJid, { text: "before" })
    expect((await sim.nextMessage(moved)).text).toBe("before")

    const oldLid = moved.lidJid
    const newLid = `${sim.changeLid(moved)}@lid`
    expect(moved.lidJid).toBe(newLid)
    expect(moved.formerLids).toEqual([oldLid.split("@")[0]!])
    const stale = await client.sock.sendMessage(moved.pnJid, { text: "stale" })
    const ack = await client.waitFor(() => client.serverAcks.find((node) => node.attrs.id === stale!.key.id), "the ack")
    expect(ack.attrs).toMatchObject({ refresh_lid: "true", from: moved.pnJid })
    expect(sim.lidChanges.acks.map((a) => a.id)).toEqual([stale!.key.id!])
    expect(sim.timesReached(stale!.key.id!)).toBe(0)
    expect(sim.lidChanges.refreshed(ME, moved)).toBe(false)

    // What a client does on refresh_lid: ask by number, store the answer.
    const answer = await client.sock.executeUSyncQuery(new USyncQuery().withContext("background").withLIDProtocol().withUser(new USyncUser().withId(moved.pnJid)))
    expect(answer?.list[0]?.lid).toBe(newLid)
    expect(sim.lidChanges.refreshed(ME, moved)).toBe(true)
    await client.sock.signalRepository.lidMapping.storeLIDPNMappings([{ lid: newLid, pn: moved.pnJid }])

    await client.sock.sendMessage(moved.pnJid, { text: "after" })
    expect((await sim.nextMessage(moved)).text).toBe("after")
    expect(sim.lidChanges.acks).toHaveLength(1)
    // A send to the old LID itself is still flagged.
    await client.sock.sendMessage(oldLid, { text: "to the old lid" })
    await client.waitFor(() => (sim.lidChanges.acks.length === 2 ? true : undefined), "a second refresh_lid ack")
  })
})

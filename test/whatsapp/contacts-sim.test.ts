import { storeOver } from "../helpers/sqlite-store"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { openSimSession, type SimSession } from "../helpers/sim-session"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { startWaSim, trustMediaHostInFetch, type SimContact, type WaSim } from "../wa-sim"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * Blocks and profiles through wagate's Baileys gateway against the simulator (test/wa-sim/profiles.ts):
 * the block list IQ both ways and the notification of a block made on the phone, the about text
 * (usync status), the business profile and the picture downloaded from the TLS media host.
 */

const ME = "+15550071111"
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 0xff, 0xd9])

let sim: WaSim
let db: Database
let writer: Writer
let phone: SimSession
let ana: SimContact
let bakery: SimContact
let shy: SimContact
let dir: string
let untrust: () => void
const changes: { contacts: string[]; blocked: boolean }[] = []
const clock = new TestClock()

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  untrust = trustMediaHostInFetch(sim)
  dir = mkdtempSync(join(tmpdir(), "wagate-contacts-sim-"))
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
  ana = sim.contact({ phoneNumber: "+15550072222", name: "Ana" })
  bakery = sim.contact({ phoneNumber: "+15550073333", name: "Bakery" })
  shy = sim.contact({ phoneNumber: "+15550074444", name: "Shy" })
  sim.profiles.setProfile("15550072222", { about: { text: "at the gym", setAtS: 1_714_521_600 } })
  sim.profiles.setPicture("15550072222", JPEG)
  sim.profiles.setProfile("15550073333", { business: { description: "Fresh bread", category: "Bakery", email: "b@example.com", website: "https://bakery.example", address: "1 Main St" } })
  sim.profiles.setProfile("15550074444", { about: "hidden", picture: "hidden" })
  const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: sim.wsUrl })
  phone = await openSimSession(gateway, sim, ME, { pair: true, events: { blocklistChanged: (change) => void changes.push(change) } })
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await phone?.session.close()
  untrust?.()
  await sim?.stop()
  rmSync(dir, { recursive: true, force: true })
}, SLOW_HOOK_TIMEOUT_MS)

describe("blocks against the simulator", () => {
  test("a block by number reaches WhatsApp as the LID with the number beside it, and the list names the number", async () => {
    await phone.session.setBlocked("15550072222@s.whatsapp.net", true)
    expect(sim.profiles.blockRequests.at(-1)).toEqual({ action: "block", jid: ana.lidJid, pnJid: "15550072222@s.whatsapp.net" })
    expect(await phone.session.fetchBlocklist()).toEqual(["+15550072222"])
    await phone.session.setBlocked("15550072222@s.whatsapp.net", false)
    expect(await phone.session.fetchBlocklist()).toEqual([])
  })

  test("a block made on the phone arrives as a block list change and shows in the next read: by LID until the number behind it is known", async () => {
    sim.changeBlockOnPhone(ME, shy, true)
    await waitUntil(() => changes.length > 0, 10_000, "the block list notification")
    expect(changes.at(-1)).toEqual({ contacts: [shy.lidJid], blocked: true })
    expect(await phone.session.fetchBlocklist()).toEqual([shy.lidJid])
    sim.changeBlockOnPhone(ME, shy, false)
    await waitUntil(() => changes.length > 1, 10_000, "the unblock notification")
    changes.length = 0
    // Once Baileys has learnt the LID's number (here by an unblock by number, which looks the LID up), the block reads as the number.
    await phone.session.setBlocked("15550073333@s.whatsapp.net", false)
    sim.changeBlockOnPhone(ME, bakery, true)
    await waitUntil(() => changes.length > 0, 10_000, "the block list notification")
    expect(changes.at(-1)).toEqual({ contacts: ["+15550073333"], blocked: true })
    expect(await phone.session.fetchBlocklist()).toEqual(["+15550073333"])
    sim.changeBlockOnPhone(ME, bakery, false)
    await waitUntil(() => changes.length > 1, 10_000, "the unblock notification")
    expect(changes.at(-1)).toEqual({ contacts: ["+15550073333"], blocked: false })
  })
})

describe("profiles against the simulator", () => {
  test("the about text and when it was set come from usync's status protocol; hidden or absent is null", async () => {
    expect(await phone.session.fetchAbout("15550072222@s.whatsapp.net")).toEqual({ text: "at the gym", setAtMs: 1_714_521_600_000 })
    expect(await phone.session.fetchAbout("15550074444@s.whatsapp.net")).toBeNull()
    expect(await phone.session.fetchAbout("15550073333@s.whatsapp.net")).toBeNull()
  })

  test("a business account's profile is read; an ordinary account has none", async () => {
    expect(await phone.session.fetchBusinessProfile("15550073333@s.whatsapp.net")).toEqual({
      description: "Fresh bread",
      category: "Bakery",
      email: "b@example.com",
      websites: ["https://bakery.example"],
      address: "1 Main St",
    })
    expect(await phone.session.fetchBusinessProfile("15550072222@s.whatsapp.net")).toBeNull()
  })

  test("the picture's URL and id come from w:profile:picture, and its bytes download from the media host into a 0600 file; none or hidden is null", async () => {
    const picture = await phone.session.pictureOf("15550072222@s.whatsapp.net")
    expect(picture?.pictureId).toMatch(/^\d+$/)
    const path = join(dir, "ana.jpg")
    expect(await phone.session.downloadPicture(picture!.url, path, 1024)).toBe(JPEG.length)
    expect(new Uint8Array(readFileSync(path))).toEqual(JPEG)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(await phone.session.pictureOf("15550074444@s.whatsapp.net")).toBeNull()
    expect(await phone.session.pictureOf("15550073333@s.whatsapp.net")).toBeNull()
    // A new picture has a new id, so wagate's cache knows to fetch it again.
    sim.profiles.setPicture("15550072222", JPEG)
    expect((await phone.session.pictureOf("15550072222@s.whatsapp.net"))?.pictureId).not.toBe(picture!.pictureId)
  })

  test("a picture URL outside WhatsApp's media hosts is refused, never fetched", async () => {
    expect(await phone.session.downloadPicture("https://attacker.example/x.jpg", join(dir, "x.jpg"), 1024).catch((e: Error) => e.message)).toBe(
      "WhatsApp named a picture URL outside its media hosts",
    )
  })
})

import { storeOver } from "../helpers/sqlite-store"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { silentLogger } from "../../src/lib/logger"
import { Counter } from "../../src/lib/metrics"
import { toProfileJpeg } from "../../src/lib/profile-picture"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { bandedPicture } from "../helpers/pictures"
import { openSimSession, type SimSession } from "../helpers/sim-session"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { profileOf, startWaSim, type SimGroup, type WaSim } from "../wa-sim"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The gateway port's own-profile block through the Baileys adapter, with unmodified Baileys,
 * against the simulator (test/wa-sim/profile.ts): the picture IQ carries wagate's JPEG as it is,
 * with `target` for a group; the about text and the push name arrive as WhatsApp takes them.
 */

const ME = "+15550071111"

let sim: WaSim
let db: Database
let writer: Writer
let phone: SimSession
let team: SimGroup
const clock = new TestClock()

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
  const alice = sim.contact({ phoneNumber: "+15550072222", name: "Alice" })
  team = sim.group({ subject: "Team", members: [alice], admins: ["me"] })
  const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: sim.wsUrl, encryptedEdits: new Counter("t", "t", {}) })
  phone = await openSimSession(gateway, sim, ME, { pair: true, events: { inboundAction() {} } })
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await phone?.session.close()
  await sim?.stop()
  db?.close()
}, SLOW_HOOK_TIMEOUT_MS)

async function jpeg(): Promise<Uint8Array> {
  const converted = await toProfileJpeg(await bandedPicture("png", 300, 100))
  if (!converted.ok) throw new Error(converted.message)
  return converted.jpeg
}

describe("own profile through Baileys against the simulator", () => {
  test("our picture: WhatsApp receives the converted JPEG byte for byte, and a removal clears it", async () => {
    const picture = await jpeg()
    await phone.session.setPicture(null, picture)
    const mine = profileOf(sim.primary(ME).account)
    expect(Buffer.from(mine.picture!).equals(Buffer.from(picture))).toBe(true)
    await phone.session.removePicture(null)
    expect(mine.picture).toBeNull()
  })

  test("a group's picture goes to the group named by target, not to our own profile", async () => {
    const picture = await jpeg()
    await phone.session.setPicture(`${team.id}@g.us`, picture)
    expect(Buffer.from(profileOf(team).picture!).equals(Buffer.from(picture))).toBe(true)
    expect(profileOf(sim.primary(ME).account).picture).toBeNull()
    await phone.session.removePicture(`${team.id}@g.us`)
    expect(profileOf(team).picture).toBeNull()
  })

  test("a group WhatsApp does not know: the change is refused", async () => {
    await expect(phone.session.setPicture("120363999999999999@g.us", await jpeg())).rejects.toThrow()
  })

  test("the about text and the push name reach WhatsApp", async () => {
    await phone.session.setAbout("We answer within the hour")
    await phone.session.setProfileName("Acme Support")
    const mine = profileOf(sim.primary(ME).account)
    expect(mine.about).toBe("We answer within the hour")
    await waitUntil(() => mine.pushName === "Acme Support", 10_000, "the push name")
  })
})

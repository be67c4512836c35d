import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Blocking and contact profiles (docs/api.md § "Blocking" and § "Contact profiles") with wagate as
 * a real process and real Baileys, through the TLS front as in production: a block through the API
 * reaches WhatsApp's block list, a block made on the phone shows in the API's list, and a profile
 * with its picture is read, the picture's bytes downloaded from the media host once and then served
 * from wagate's cache. contacts-source.test.ts runs it against `bun src/main.ts serve`.
 */

const ME = "+15550081111"
const STEP_TIMEOUT_MS = 30_000
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 1, 2, 3, 0xff, 0xd9])

export function describeContacts(label: string, run: ScenarioRun): void {
  let ana: SimContact
  let bakery: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "contacts",
    scopes: ["contacts:write", "contacts:read", "phone_numbers:read"],
    setUp: ({ sim }) => {
      ana = sim.contact({ phoneNumber: "+15550082222", name: "Ana" })
      bakery = sim.contact({ phoneNumber: "+15550083333", name: "Bakery" })
      sim.profiles.setProfile(bakery.phoneNumber, {
        about: { text: "Fresh bread daily", setAtS: 1_714_521_600 },
        business: { description: "A bakery", category: "Bakery", website: "https://bakery.example" },
      })
    },
    pair: ME,
  })

  async function ok(method: string, path: string, body?: unknown): Promise<any> {
    const res = await live.api.call(method, path, body)
    expect({ path, status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ path, status: 200, body: null })
    return res.body.data
  }

  const picture = () => fetch(`${live.wagate.base}/v1/contacts/%2B${bakery.phoneNumber}/picture?fromPhoneId=${encodeURIComponent(ME)}`, { headers: { authorization: `Bearer ${live.api.key}` } })

  describe(`blocks and profiles against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("a block through the API reaches WhatsApp's block list; the unblock takes it off", async () => {
      expect(await ok("POST", "/contacts/block", { fromPhoneId: ME, contact: `+${ana.phoneNumber}` })).toEqual({ contact: `+${ana.phoneNumber}`, blocked: true })
      expect(live.sim.profiles.blockRequests.at(-1)).toEqual({ action: "block", jid: ana.lidJid, pnJid: `${ana.phoneNumber}@s.whatsapp.net` })
      expect(await ok("GET", `/contacts/blocked?fromPhoneId=${encodeURIComponent(ME)}`)).toEqual({ contacts: [`+${ana.phoneNumber}`] })
      await ok("POST", "/contacts/unblock", { fromPhoneId: ME, contact: `+${ana.phoneNumber}` })
      expect(await ok("GET", `/contacts/blocked?fromPhoneId=${encodeURIComponent(ME)}`)).toEqual({ contacts: [] })
    }, STEP_TIMEOUT_MS)

    test("a block made on the phone shows in the API's list", async () => {
      live.sim.changeBlockOnPhone(ME, bakery, true)
      await poll(async () => ((await ok("GET", `/contacts/blocked?fromPhoneId=${encodeURIComponent(ME)}`)).contacts.length === 1 ? true : undefined), "the phone's block")
      live.sim.changeBlockOnPhone(ME, bakery, false)
      expect(await ok("GET", `/contacts/blocked?fromPhoneId=${encodeURIComponent(ME)}`)).toEqual({ contacts: [] })
    }, STEP_TIMEOUT_MS)

    test("a business's profile is read, and its picture's bytes are served: downloaded once, then from wagate's cache", async () => {
      const stored = live.sim.profiles.setPicture(bakery.phoneNumber, JPEG)
      const profile = await ok("GET", `/contacts/%2B${bakery.phoneNumber}/profile?fromPhoneId=${encodeURIComponent(ME)}`)
      expect(profile).toMatchObject({ contact: `+${bakery.phoneNumber}`, about: "Fresh bread daily", aboutSetAt: "2024-05-01T00:00:00.000Z", isBusiness: true })
      expect(profile.business).toEqual({ description: "A bakery", category: "Bakery", email: null, websites: ["https://bakery.example"], address: null })
      expect(profile.pictureUrl).toBe(`/v1/contacts/%2B${bakery.phoneNumber}/picture?fromPhoneId=${encodeURIComponent(ME)}`)
      const first = await picture()
      expect([first.status, first.headers.get("content-type")]).toEqual([200, "image/jpeg"])
      expect(new Uint8Array(await first.arrayBuffer())).toEqual(JPEG)
      // WhatsApp's URL expires; the picture id is unchanged, so the bytes come from the cache.
      live.sim.media.expire(new URL(stored.url).pathname, 404)
      const second = await picture()
      expect(new Uint8Array(await second.arrayBuffer())).toEqual(JPEG)
      expect((await live.api.call("GET", `/contacts/%2B${ana.phoneNumber}/picture?fromPhoneId=${encodeURIComponent(ME)}`)).status).toBe(404)
    }, STEP_TIMEOUT_MS)
  })
}

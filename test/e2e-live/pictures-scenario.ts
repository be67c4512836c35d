import { describe, expect, test } from "bun:test"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { bandedPicture } from "../helpers/pictures"
import { profileOf, type SimGroup } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * The phone's own profile (docs/api.md § "Pictures and the phone's own profile") with wagate as a real process and real Baileys,
 * through the TLS front as in production: a picture fetched from an https host is converted and
 * WhatsApp receives a 640 × 640 JPEG; the name and the about text reach WhatsApp. The tests run in
 * order on one simulator and one wagate; pictures-source.test.ts runs them against
 * `bun src/main.ts serve`.
 */

const ME = "+15550081111"
const STEP_TIMEOUT_MS = 60_000

export function describePictures(label: string, run: ScenarioRun): void {
  let team: SimGroup
  const live = liveScenarioWorld(run, {
    keyName: "pictures",
    scopes: ["phone_numbers:write", "phone_numbers:read", "groups:write"],
    files: true,
    setUp: ({ sim }) => {
      const alice = sim.contact({ phoneNumber: "+15550082222", name: "Alice" })
      team = sim.group({ subject: "Team", members: [alice], admins: ["me"] })
    },
    pair: ME,
  })

  describe(`the phone's own profile against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("PUT picture: a landscape PNG from an https host reaches WhatsApp as a 640 × 640 JPEG, and the profile names where wagate serves it", async () => {
      const url = live.files.put("/logo.png", await bandedPicture("png", 1200, 400), "image/png")
      const res = await live.api.call("PUT", `/phone-numbers/${encodeURIComponent(ME)}/picture`, { mediaUrl: url })
      expect({ status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ status: 200, body: null })
      const mine = profileOf(live.sim.primary(ME).account)
      const received = await poll(async () => mine.picture ?? undefined, "the picture at WhatsApp")
      expect(readImageHeader(received)).toEqual({ format: "jpeg", width: 640, height: 640 })
      expect(res.body.data.pictureUrl).toBe(`/v1/phone-numbers/${live.phoneId}/picture`)
    }, STEP_TIMEOUT_MS)

    test("PATCH profile: WhatsApp gets the about text and the push name", async () => {
      const res = await live.api.call("PATCH", `/phone-numbers/${encodeURIComponent(ME)}/profile`, { name: "Acme Support", about: "We answer within the hour" })
      expect(res.status).toBe(200)
      const mine = profileOf(live.sim.primary(ME).account)
      expect(mine.about).toBe("We answer within the hour")
      await poll(async () => (mine.pushName === "Acme Support" ? true : undefined), "the push name at WhatsApp")
    }, STEP_TIMEOUT_MS)

    test("PUT a group's picture: a portrait JPEG reaches WhatsApp as the group's 640 × 640 JPEG; the answer is the group's detail", async () => {
      const url = live.files.put("/team.jpg", await bandedPicture("jpeg", 300, 900), "image/jpeg")
      const res = await live.api.call("PUT", `/groups/${encodeURIComponent(team.jid)}/picture`, { fromPhoneId: ME, mediaUrl: url })
      expect({ status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ status: 200, body: null })
      expect(res.body.data.id).toBe(team.jid)
      const received = profileOf(team).picture
      expect(received && readImageHeader(received)).toEqual({ format: "jpeg", width: 640, height: 640 })
      expect((await live.api.call("DELETE", `/groups/${encodeURIComponent(team.jid)}/picture`, { fromPhoneId: ME })).status).toBe(200)
      expect(profileOf(team).picture).toBeNull()
    }, STEP_TIMEOUT_MS)

    test("DELETE picture: WhatsApp's picture is removed", async () => {
      expect((await live.api.call("DELETE", `/phone-numbers/${encodeURIComponent(ME)}/picture`)).status).toBe(200)
      expect(profileOf(live.sim.primary(ME).account).picture).toBeNull()
    }, STEP_TIMEOUT_MS)
  })
}

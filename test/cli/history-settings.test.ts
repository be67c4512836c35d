import { describe, expect, test } from "bun:test"
import { cliPhoneFixture } from "./cli-phone"
import { cli } from "./run-cli"

/* `wagate phones history` (docs/admin.md § "History on pairing"): show, set, refuse bad input. */

const phone = cliPhoneFixture("+14155550123")

const settingsJson = async () => JSON.parse((await cli(phone.dir, ["phones", "history", "+14155550123", "--json"])).stdout)

describe("wagate phones history", () => {
  test("a phone asks for recent history of 90 days until set; --sync and --days set each, keeping the other", async () => {
    const shown = await cli(phone.dir, ["phones", "history", phone.phoneId])
    expect([shown.code, shown.stdout]).toEqual([0, `${phone.phoneId} asks for recent history when it links, keeping the last 90 days.\n`])
    expect((await cli(phone.dir, ["phones", "history", phone.phoneId, "--sync", "full"])).code).toBe(0)
    expect((await cli(phone.dir, ["phones", "history", phone.phoneId, "--days", "3650"])).code).toBe(0)
    expect(await settingsJson()).toMatchObject({ phoneId: phone.phoneId, historySync: "full", historyDays: 3650 })
  })

  test("bad input: one readable message each, the settings unchanged", async () => {
    const mode = await cli(phone.dir, ["phones", "history", phone.phoneId, "--sync", "all"])
    expect([mode.code, mode.stderr.includes('--sync takes none, recent or full, not "all"')]).toEqual([2, true])
    for (const days of ["0", "3651", "1.5"]) {
      const bad = await cli(phone.dir, ["phones", "history", phone.phoneId, "--days", days])
      expect([bad.code, bad.stderr.includes(`--days takes a whole number from 1 to 3650, not "${days}"`)]).toEqual([2, true])
    }
    expect(await settingsJson()).toMatchObject({ historySync: "recent", historyDays: 90 })
  })
})

import { describe, expect, test } from "bun:test"
import { cliPhoneFixture } from "./cli-phone"
import { cli } from "./run-cli"

/* `wagate phones call-policy` (docs/admin.md § "Call policy"): show, set, refuse bad input. */

const phone = cliPhoneFixture("+14155550123")

const policyJson = async () => JSON.parse((await cli(phone.dir, ["phones", "call-policy", "+14155550123", "--json"])).stdout)

describe("wagate phones call-policy", () => {
  test("a phone without a policy lets calls ring", async () => {
    const res = await cli(phone.dir, ["phones", "call-policy", phone.phoneId])
    expect(res.code).toBe(0)
    expect(res.stdout).toBe(`Calls to ${phone.phoneId} ring (not rejected); no reply when rejecting is on.\n`)
  })

  test("--reject on with --reply sets both; --reject off keeps the text; --reply \"\" clears it", async () => {
    const on = await cli(phone.dir, ["phones", "call-policy", "+14155550123", "--reject", "on", "--reply", "We cannot take calls; please write."])
    expect(on.code).toBe(0)
    expect(on.stdout).toBe(`Calls to ${phone.phoneId} are rejected; reply "We cannot take calls; please write." (at most once per caller per hour).\n`)
    expect(await policyJson()).toMatchObject({ phoneId: phone.phoneId, rejectCalls: true, replyText: "We cannot take calls; please write." })
    expect((await cli(phone.dir, ["phones", "call-policy", phone.phoneId, "--reject", "off"])).code).toBe(0)
    expect(await policyJson()).toMatchObject({ rejectCalls: false, replyText: "We cannot take calls; please write." })
    expect((await cli(phone.dir, ["phones", "call-policy", phone.phoneId, "--reply", ""])).code).toBe(0)
    expect(await policyJson()).toMatchObject({ rejectCalls: false, replyText: null })
  })

  test("bad input: one readable message each, the policy unchanged", async () => {
    const bad = await cli(phone.dir, ["phones", "call-policy", phone.phoneId, "--reject", "yes"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--reject takes on or off, not "yes"')
    const long = await cli(phone.dir, ["phones", "call-policy", phone.phoneId, "--reject", "on", "--reply", "x".repeat(1025)])
    expect(long.code).toBe(1)
    expect(long.stderr).toBe("error: replyText must be at most 1024 characters\n")
    const unknown = await cli(phone.dir, ["phones", "call-policy", "+14155550999", "--reject", "on"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("error: Phone number +14155550999 not found\n")
    expect(await policyJson()).toMatchObject({ rejectCalls: false, replyText: null })
    expect((await cli(phone.dir, ["phones", "call-policy"])).code).toBe(2)
  })
})

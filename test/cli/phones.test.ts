import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { cli, makeDataDir, printedAccountId, printedPhoneId, removeDataDir } from "./run-cli"

let dir: string
let accountId: string
beforeEach(async () => {
  dir = makeDataDir()
  accountId = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).stdout)
})
afterEach(() => removeDataDir(dir))

const listJson = async (...extra: string[]) => JSON.parse((await cli(dir, ["phones", "list", "--json", ...extra])).stdout)

describe("wagate phones", () => {
  test("add prints the phone and how to send from it; list shows it unpaired", async () => {
    const res = await cli(dir, ["phones", "add", "+14155550123", "--name", "Support"])
    expect(res.code).toBe(0)
    const id = printedPhoneId(res.stdout)
    expect(id).toMatch(/^ph_[0-9a-z]{26}$/)
    expect(res.stdout).toBe(
      `Added phone ${id} (+14155550123), status unpaired.\nTest keys can send from it now: fromPhoneId "+14155550123".\n`,
    )

    const table = await cli(dir, ["phones"])
    expect(table.code).toBe(0)
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NUMBER\s+NAME\s+STATUS\s+LAST CONNECTED\s+CREATED$/)
    const row = table.stdout.split("\n").find((l) => l.startsWith(id))!
    expect(row.split(/\s{2,}/).slice(0, 5)).toEqual([id, "+14155550123", "Support", "unpaired", "-"])

    expect(await listJson()).toMatchObject([
      { id, phoneNumber: "+14155550123", displayName: "Support", connectionStatus: "unpaired" },
    ])
  })

  test("without --name the display name is the number", async () => {
    expect((await cli(dir, ["phones", "add", "+447700900123"])).code).toBe(0)
    expect((await listJson())[0].displayName).toBe("+447700900123")
  })

  test.each([
    ["no plus", "14155550123"],
    ["a leading zero", "+04155550123"],
    ["too short", "+1234567"],
    ["too long", "+1234567890123456"],
    ["letters", "+1415555abcd"],
    ["spaces", "+1 415 555 0123"],
  ])("add refuses a number that is not E.164 (%s)", async (_name, number) => {
    const res = await cli(dir, ["phones", "add", number])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe("error: phoneNumber must be an E.164 number (+ and 8–15 digits)\n")
    expect(await listJson()).toEqual([])
  })

  test("add without a number is a usage error", async () => {
    const res = await cli(dir, ["phones", "add"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain("phones add needs a phone number in E.164 form")
  })

  test("a number already added is refused, in this account or another", async () => {
    expect((await cli(dir, ["phones", "add", "+14155550123"])).code).toBe(0)
    const again = await cli(dir, ["phones", "add", "+14155550123"])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe("error: Phone +14155550123 already exists\n")

    const other = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Other", "--email", "o@x.example"])).stdout)
    const elsewhere = await cli(dir, ["phones", "add", "+14155550123", "--account", other])
    expect(elsewhere.code).toBe(1)
    expect(elsewhere.stderr).toBe("error: Phone +14155550123 already exists\n")
    expect(await listJson("--account", accountId)).toHaveLength(1)
    expect(await listJson("--account", other)).toEqual([])
  })

  test("remove by id or by E.164 number; its messages are kept", async () => {
    const a = printedPhoneId((await cli(dir, ["phones", "add", "+14155550123"])).stdout)
    const b = printedPhoneId((await cli(dir, ["phones", "add", "+14155550124"])).stdout)

    const byId = await cli(dir, ["phones", "remove", a])
    expect(byId.code).toBe(0)
    expect(byId.stdout).toBe(`Removed phone ${a} (+14155550123); its messages are kept.\n`)
    const byNumber = await cli(dir, ["phones", "remove", "+14155550124"])
    expect(byNumber.code).toBe(0)
    expect(byNumber.stdout).toBe(`Removed phone ${b} (+14155550124); its messages are kept.\n`)
    expect(await listJson()).toEqual([])

    // The number is free again.
    expect((await cli(dir, ["phones", "add", "+14155550123"])).code).toBe(0)
  })

  test("remove of an unknown phone fails with exit 1; a missing one is a usage error", async () => {
    const unknown = await cli(dir, ["phones", "remove", "+14155550999"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("error: Phone number +14155550999 not found\n")
    const missing = await cli(dir, ["phones", "remove"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("phones remove needs a PHONE_ID or +E164 number")
  })

  test("list and add with an unknown --account fail with exit 1", async () => {
    const list = await cli(dir, ["phones", "list", "--account", "acc_nope"])
    expect(list.code).toBe(1)
    expect(list.stderr).toBe("error: Account acc_nope not found\n")
    const add = await cli(dir, ["phones", "add", "+14155550123", "--account", "acc_nope"])
    expect(add.code).toBe(1)
    expect(add.stderr).toBe("error: Account acc_nope not found\n")
  })
})

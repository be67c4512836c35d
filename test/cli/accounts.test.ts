import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { cli, makeDataDir, printedAccountId, printedKey, removeDataDir, serverOn } from "./run-cli"

let dir: string
beforeEach(() => {
  dir = makeDataDir()
})
afterEach(() => removeDataDir(dir))

async function createAccount(name = "Acme", email = "ops@acme.example"): Promise<string> {
  const res = await cli(dir, ["accounts", "create", "--name", name, "--email", email])
  expect(res.code).toBe(0)
  return printedAccountId(res.stdout)
}

describe("wagate accounts", () => {
  test("list on an empty data directory prints only the header", async () => {
    const res = await cli(dir, ["accounts"])
    expect(res.code).toBe(0)
    expect(res.stdout.trim()).toBe("ID  NAME  EMAIL  SUBSCRIPTION  RATE LIMIT  KEYS  PHONES  MESSAGES")
  })

  test("create prints the new account and the next step; list shows it", async () => {
    const res = await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])
    expect(res.code).toBe(0)
    const id = printedAccountId(res.stdout)
    expect(id).toMatch(/^acc_[0-9a-z]{26}$/)
    expect(res.stdout).toContain(`Next: wagate keys create --account ${id} --env test --data ${dir}`)

    const table = await cli(dir, ["accounts", "list"])
    expect(table.code).toBe(0)
    const row = table.stdout.split("\n").find((l) => l.startsWith(id))!
    expect(row.split(/\s{2,}/)).toEqual([id, "Acme", "ops@acme.example", "active", "default", "0", "0", "0"])

    const json = await cli(dir, ["accounts", "list", "--json"])
    expect(json.code).toBe(0)
    const accounts = JSON.parse(json.stdout)
    expect(accounts).toHaveLength(1)
    expect(accounts[0]).toMatchObject({
      accountId: id,
      name: "Acme",
      email: "ops@acme.example",
      subscriptionStatus: "active",
      rateLimitPerMinute: null,
      stats: { apiKeys: 0, phoneNumbers: 0, messages: 0 },
    })
    expect(Date.parse(accounts[0].createdAt)).not.toBeNaN()
  })

  test("--data DIR works like WAGATE_DATA_DIR", async () => {
    const other = makeDataDir()
    try {
      const res = await cli(dir, ["accounts", "create", "--name", "Elsewhere", "--email", "e@x.example", "--data", other])
      expect(res.code).toBe(0)
      expect(JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)).toEqual([])
      expect(JSON.parse((await cli(dir, ["accounts", "list", "--json", "--data", other])).stdout)).toHaveLength(1)
    } finally {
      removeDataDir(other)
    }
  })

  test.each([
    ["no --email", ["--name", "Acme"], "accounts create needs --name and --email"],
    ["no --name", ["--email", "a@b.example"], "accounts create needs --name and --email"],
    ["a flag without its value", ["--name"], "--name needs a value"],
  ])("create with %s is a usage error (exit 2)", async (_name, args, message) => {
    const res = await cli(dir, ["accounts", "create", ...args])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`error: ${message}`)
    expect(res.stderr).toContain("Run `wagate help` for usage.")
    expect(JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)).toEqual([])
  })

  test.each([
    ["an invalid e-mail", ["--name", "Acme", "--email", "not-an-email"], "email must be an e-mail address"],
    ["a blank name", ["--name", "   ", "--email", "a@b.example"], "name must be 1–200 characters"],
  ])("create with %s is refused by the same rules as the admin API (exit 1)", async (_name, args, message) => {
    const res = await cli(dir, ["accounts", "create", ...args])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`error: ${message}\n`)
    expect(JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)).toEqual([])
  })

  test("update changes name, e-mail, subscription and rate limit, and `default` clears the limit", async () => {
    const id = await createAccount()
    const res = await cli(dir, [
      "accounts",
      "update",
      id,
      "--name",
      "Acme Ltd",
      "--email",
      "billing@acme.example",
      "--subscription",
      "inactive",
      "--rate-limit",
      "250",
    ])
    expect(res.code).toBe(0)
    expect(res.stdout).toBe(`Updated account ${id}: subscription inactive, rate limit 250.\n`)
    const [account] = JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)
    expect(account).toMatchObject({ name: "Acme Ltd", email: "billing@acme.example", subscriptionStatus: "inactive", rateLimitPerMinute: 250 })

    const back = await cli(dir, ["accounts", "update", id, "--subscription", "active", "--rate-limit", "default"])
    expect(back.code).toBe(0)
    expect(back.stdout).toBe(`Updated account ${id}: subscription active, rate limit default.\n`)
    const [after] = JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)
    expect(after).toMatchObject({ name: "Acme Ltd", subscriptionStatus: "active", rateLimitPerMinute: null })
  })

  test("the rate limit set by the CLI is the one the API applies", async () => {
    const id = await createAccount()
    expect((await cli(dir, ["accounts", "update", id, "--rate-limit", "7"])).code).toBe(0)
    const key = printedKey((await cli(dir, ["keys", "create"])).stdout)
    const server = await serverOn(dir)
    try {
      const res = await server.get("/v1/account", key)
      expect(res.status).toBe(200)
      expect(res.headers.get("x-ratelimit-limit")).toBe("7")
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=7;w=60')
    } finally {
      await server.close()
    }
  })

  test.each([
    ["--subscription paused", ["--subscription", "paused"], "--subscription must be active or inactive"],
    ["--rate-limit 0", ["--rate-limit", "0"], "--rate-limit must be a positive whole number or `default`"],
    ["--rate-limit abc", ["--rate-limit", "abc"], "--rate-limit must be a positive whole number or `default`"],
    ["--rate-limit 1.5", ["--rate-limit", "1.5"], "--rate-limit must be a positive whole number or `default`"],
  ])("update with %s is a usage error (exit 2) and changes nothing", async (_name, args, message) => {
    const id = await createAccount()
    const res = await cli(dir, ["accounts", "update", id, ...args])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`error: ${message}`)
    const [account] = JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)
    expect(account).toMatchObject({ email: "ops@acme.example", subscriptionStatus: "active", rateLimitPerMinute: null })
  })

  test("update without an ACCOUNT_ID is a usage error", async () => {
    const res = await cli(dir, ["accounts", "update", "--name", "x"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain("accounts update needs an ACCOUNT_ID")
  })

  test("update of an unknown account fails with exit 1", async () => {
    const res = await cli(dir, ["accounts", "update", "acc_nope", "--name", "x"])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe("error: Account acc_nope not found\n")
  })

  test("an unknown accounts subcommand is a usage error", async () => {
    const res = await cli(dir, ["accounts", "delete"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('Unknown accounts command "delete"')
  })
})

import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { ALL_SCOPES, CANONICAL_SCOPES } from "../../src/domain/scopes"
import { cli, makeDataDir, printedAccountId, printedKey, printedKeyId, removeDataDir, serverOn } from "./run-cli"

let dir: string
let accountId: string
beforeEach(async () => {
  dir = makeDataDir()
  accountId = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).stdout)
})
afterEach(() => removeDataDir(dir))

describe("wagate keys create", () => {
  test("prints a working sk_test_ key once, with every canonical scope by default", async () => {
    const res = await cli(dir, ["keys", "create", "--name", "CI"])
    expect(res.code).toBe(0)
    const key = printedKey(res.stdout)
    const id = printedKeyId(res.stdout)
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{43}$/)
    expect(res.stdout).toContain(`Created test key ${id} (CI) with scopes ${CANONICAL_SCOPES.join(", ")}.`)
    expect(res.stdout).toContain("Store it now: it is not shown again.")
    expect(res.stdout.split(key)).toHaveLength(2)

    const server = await serverOn(dir)
    try {
      const account = await server.get("/v1/account", key)
      expect(account.status).toBe(200)
      expect(account.body.data.accountId).toBe(accountId)
      expect(account.headers.get("x-service-environment")).toBe("test")
    } finally {
      await server.close()
    }
  })

  test("--env live prints a working sk_live_ key", async () => {
    const res = await cli(dir, ["keys", "create", "--env", "live"])
    expect(res.code).toBe(0)
    const key = printedKey(res.stdout)
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/)
    expect(res.stdout).toMatch(/^Created live key key_[0-9a-z]+ \(live key\)/)
    const server = await serverOn(dir)
    try {
      const account = await server.get("/v1/account", key)
      expect(account.status).toBe(200)
      expect(account.headers.get("x-service-environment")).toBe("live")
    } finally {
      await server.close()
    }
  })

  test("--scopes limits what the key may do", async () => {
    const res = await cli(dir, ["keys", "create", "--scopes", "phone-numbers:read"])
    expect(res.code).toBe(0)
    expect(res.stdout).toContain("with scopes phone-numbers:read.")
    const key = printedKey(res.stdout)
    const server = await serverOn(dir)
    try {
      expect((await server.get("/v1/phone-numbers", key)).status).toBe(200)
      expect((await server.get("/v1/messages", key)).status).toBe(403)
      expect((await server.get("/v1/account", key)).status).toBe(403)
    } finally {
      await server.close()
    }
  })

  test("an unknown scope is named, with the valid ones", async () => {
    const res = await cli(dir, ["keys", "create", "--scopes", "message:send"])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(
      "error: scopes contains an unknown scope: message:send; the valid scopes are messages:send, messages:write, messages:read, groups:read, phone_numbers:read, phone-numbers:read, account:read, groups:write, contacts:read, contacts:write, phone_numbers:write, events:read\n",
    )
  })

  test("--scopes rejects unknown scopes and creates nothing", async () => {
    const res = await cli(dir, ["keys", "create", "--scopes", "messages:read,messages:delete,admin"])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`error: scopes contains unknown scopes: messages:delete, admin; the valid scopes are ${ALL_SCOPES.join(", ")}\n`)
    expect(res.stdout).toBe("")
    expect(JSON.parse((await cli(dir, ["keys", "list", "--json"])).stdout)).toEqual([])
  })

  test("--expires sets the expiry; a past or unreadable time is refused", async () => {
    const ok = await cli(dir, ["keys", "create", "--expires", "2099-01-01T00:00:00Z"])
    expect(ok.code).toBe(0)
    const [record] = JSON.parse((await cli(dir, ["keys", "list", "--json"])).stdout)
    expect(record.expiresAt).toBe("2099-01-01T00:00:00.000Z")

    const past = await cli(dir, ["keys", "create", "--expires", "2000-01-01T00:00:00Z"])
    expect(past.code).toBe(1)
    expect(past.stderr).toBe("error: expiresAt must be in the future\n")

    const garbage = await cli(dir, ["keys", "create", "--expires", "tomorrow"])
    expect(garbage.code).toBe(2)
    expect(garbage.stderr).toContain("--expires must be an ISO 8601 time")
  })

  test("--env other than test or live is a usage error", async () => {
    const res = await cli(dir, ["keys", "create", "--env", "staging"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain("--env must be test or live")
  })

  test("an unknown --account fails with exit 1", async () => {
    const res = await cli(dir, ["keys", "create", "--account", "acc_nope"])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe("error: Account acc_nope not found\n")
  })

  test("with no account at all, the error says how to create one", async () => {
    const empty = makeDataDir()
    try {
      const res = await cli(empty, ["keys", "create"])
      expect(res.code).toBe(2)
      expect(res.stderr).toContain(`There is no account yet: run \`wagate accounts create --name NAME --email EMAIL --data ${empty}\``)
    } finally {
      removeDataDir(empty)
    }
  })
})

describe("wagate keys list", () => {
  test("never prints the key, only prefix…last4", async () => {
    const created = await cli(dir, ["keys", "create", "--name", "Shown once"])
    const key = printedKey(created.stdout)
    const id = printedKeyId(created.stdout)

    const table = await cli(dir, ["keys", "list"])
    expect(table.code).toBe(0)
    expect(table.stdout).not.toContain(key)
    const row = table.stdout.split("\n").find((l) => l.startsWith(id))!
    const cells = row.split(/\s{2,}/)
    expect(cells.slice(0, 5)).toEqual([id, "Shown once", "test", `${key.slice(0, 12)}…${key.slice(-4)}`, CANONICAL_SCOPES.join(",")])
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+ENV\s+KEY\s+SCOPES\s+CREATED\s+LAST USED\s+EXPIRES\s+REVOKED$/)

    const json = await cli(dir, ["keys", "list", "--json"])
    expect(json.code).toBe(0)
    expect(json.stdout).not.toContain(key)
    const [record] = JSON.parse(json.stdout)
    expect(record).toMatchObject({ id, name: "Shown once", environment: "test", prefix: key.slice(0, 12), last4: key.slice(-4) })
    expect(record).not.toHaveProperty("keyHash")
    expect(record).not.toHaveProperty("key")
  })

  test("an unknown --account fails with exit 1", async () => {
    const res = await cli(dir, ["keys", "list", "--account", "acc_nope"])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe("error: Account acc_nope not found\n")
  })
})

describe("wagate keys revoke", () => {
  test("revokes the key: the API refuses it and list shows when", async () => {
    const created = await cli(dir, ["keys", "create"])
    const key = printedKey(created.stdout)
    const id = printedKeyId(created.stdout)

    const res = await cli(dir, ["keys", "revoke", id])
    expect(res.code).toBe(0)
    expect(res.stdout).toBe(`Revoked key ${id}; it is refused from its next request on.\n`)

    const [record] = JSON.parse((await cli(dir, ["keys", "list", "--json"])).stdout)
    expect(Date.parse(record.revokedAt)).not.toBeNaN()
    const server = await serverOn(dir)
    try {
      const refused = await server.get("/v1/account", key)
      expect(refused.status).toBe(401)
      expect(refused.body.message).toEqual(["Invalid, revoked or expired API key"])
    } finally {
      await server.close()
    }
  })

  test("an unknown key id fails with exit 1; a missing one is a usage error", async () => {
    const unknown = await cli(dir, ["keys", "revoke", "key_nope"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("error: API key key_nope not found\n")
    const missing = await cli(dir, ["keys", "revoke"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("keys revoke needs a KEY_ID")
  })
})

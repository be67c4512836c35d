import { afterEach, beforeEach } from "bun:test"
import { cli, makeDataDir, printedAccountId, printedPhoneId, removeDataDir } from "./run-cli"

/** A fresh data directory holding one account and one phone, made through the CLI itself. */
export interface CliPhone {
  /** The data directory to pass to `cli`. */
  readonly dir: string
  /** The phone's id as `phones add` printed it. */
  readonly phoneId: string
  readonly phoneNumber: string
}

/**
 * Registers hooks that give each test of the file its own data directory with the account "Acme"
 * and the phone `phoneNumber` (added with `accounts create` and `phones add`), removed after the
 * test. The returned object's fields are the current test's.
 */
export function cliPhoneFixture(phoneNumber = "+14155550123"): CliPhone {
  const current = { dir: "", phoneId: "", phoneNumber }
  beforeEach(async () => {
    current.dir = makeDataDir()
    printedAccountId((await cli(current.dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).stdout)
    current.phoneId = printedPhoneId((await cli(current.dir, ["phones", "add", phoneNumber])).stdout)
  })
  afterEach(() => removeDataDir(current.dir))
  return current
}

import { ConfigError } from "../config"
import { DataDirError } from "../lib/data-dir"
import { AppError } from "../lib/errors"
import { LockHeldError } from "../lib/lockfile"
import { SchemaTooNewError } from "../store/schema-version"
import { NodeIdInUseError } from "../store/leases"
import { DatabaseStartError } from "../store/postgres/start-checks"
import { TransferError } from "../store/transfer"

/**
 * The one line to print for a failure the operator can act on (a bad setting, a held lock, a
 * database from a newer wagate, a refused operation), or null for a bug, which is rethrown.
 */
export function expectedFailureMessage(err: unknown): string | null {
  if (err instanceof AppError) return err.publicMessages.join("; ")
  if (err instanceof ConfigError || err instanceof LockHeldError || err instanceof SchemaTooNewError || err instanceof DataDirError || err instanceof DatabaseStartError) return err.message
  if (err instanceof NodeIdInUseError || err instanceof TransferError) return err.message
  return null
}

/** Raised when the database was written by a newer wagate than this one. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      `The database schema is version ${databaseVersion}, but this wagate supports up to version ${supportedVersion}. ` +
        "Upgrade wagate, or restore a backup taken with this version.",
    )
    this.name = "SchemaTooNewError"
  }
}

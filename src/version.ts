import pkg from "../package.json" with { type: "json" }

/** The wagate version, from package.json (bundled into the executable at build time). */
export const VERSION: string = pkg.version

/** The Bun versions wagate runs on, as package.json's `engines.bun` states them (e.g. `>=1.4.5`). */
export const BUN_ENGINES: string = pkg.engines.bun

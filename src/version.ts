import pkg from "../package.json" with { type: "json" }

/** The wagate version, from package.json (bundled into the executable at build time). */
export const VERSION: string = pkg.version

// Declarations for the modules the dashboard embeds or uses without shipped types.

declare module "htmx.org/dist/htmx.min.js" {
  const source: string
  export default source
}

declare module "*.css" {
  const source: string
  export default source
}

declare module "*.svg" {
  const source: string
  export default source
}

declare module "*/assets/dashboard.js" {
  const source: string
  export default source
}

/** The one function of `qrcode` the dashboard uses (its own types would pull in @types/node). */
declare module "qrcode" {
  export function toString(text: string, options: { type: "svg"; margin?: number; errorCorrectionLevel?: "L" | "M" | "Q" | "H" }): Promise<string>
}

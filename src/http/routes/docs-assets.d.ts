// Files embedded in the executable: importing them `with { type: "file" }` yields their path.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string
  export default path
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string
  export default path
}

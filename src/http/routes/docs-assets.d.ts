// Files embedded in the executable: importing them `with { type: "file" }` yields their path.
declare module "#scalar-api-reference-bundle" {
  const path: string
  export default path
}

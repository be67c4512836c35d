import type { HttpDeps } from "../../deps"
import type { ApiApp } from "../../plugins/api-auth"
import { groupsPicture } from "./groups-picture"
import { phoneNumbersPicture } from "./phone-numbers-picture"
import { phoneNumbersProfile } from "./phone-numbers-profile"

/**
 * The phone's own profile and the picture routes (docs/api.md § "Pictures and the phone's own profile"), registered as one plugin
 * typed as the base app: chaining each route's own type into `v1Routes` made TypeScript's
 * instantiation of the app too deep (TS2589) once the groups API's routes were in it.
 */
export const pictureRoutes = (deps: HttpDeps) => (app: ApiApp): ApiApp => {
  const withProfile = phoneNumbersProfile(deps)(app) as unknown as ApiApp
  const withPicture = phoneNumbersPicture(deps)(withProfile) as unknown as ApiApp
  return groupsPicture(deps)(withPicture) as unknown as ApiApp
}

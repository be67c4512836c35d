import { Type } from "@sinclair/typebox"
import { PROFILE_ABOUT_MAX, PROFILE_NAME_MAX } from "../../domain/own-profile"
import { MEDIA_URL_MAX_LENGTH } from "../../lib/net-policy"
import { named } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** The phone's own profile as set through the API (docs/api.md § "Pictures and the phone's own profile"). */
export const OwnProfile = named(
  "OwnProfile",
  Type.Object({
    phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    phoneNumber: Type.String({ examples: ["+14155550123"] }),
    name: Type.Union([Type.String(), Type.Null()], { description: "The push name contacts see, as last set through the API; null before." }),
    about: Type.Union([Type.String(), Type.Null()], { description: "The about text, as last set through the API; null before." }),
    pictureUrl: Type.Union([Type.String(), Type.Null()], {
      description: "Where wagate serves the picture last set through the API (a 640 × 640 JPEG, with the same key); null when none.",
      examples: ["/v1/phone-numbers/ph_01jd0m3k7v5q9z8y6x4w2t0r1p/picture"],
    }),
    pictureSetAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "When the picture was last set or removed." }),
    updatedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  }),
)

/** The request of `PATCH /v1/phone-numbers/{id}/profile`. */
export const OwnProfileBody = explainUnknownFields(
  named(
    "OwnProfileRequest",
    Type.Object(
      {
        name: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: PROFILE_NAME_MAX,
            description: `The push name contacts see (1..${PROFILE_NAME_MAX} characters, as the WhatsApp app allows).`,
            examples: ["Acme Support"],
            errorMessage: `name must be a string of 1 to ${PROFILE_NAME_MAX} characters`,
          }),
        ),
        about: Type.Optional(
          Type.String({
            maxLength: PROFILE_ABOUT_MAX,
            description: `The about text (at most ${PROFILE_ABOUT_MAX} characters); "" clears it.`,
            examples: ["We answer within the hour"],
            errorMessage: `about must be a string of at most ${PROFILE_ABOUT_MAX} characters`,
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** The request of `PUT /v1/phone-numbers/{id}/picture`. */
export const PictureBody = explainUnknownFields(
  named(
    "PictureRequest",
    Type.Object(
      {
        mediaUrl: Type.String({
          pattern: "^[Hh][Tt][Tt][Pp][Ss]://",
          maxLength: MEDIA_URL_MAX_LENGTH,
          description:
            "An https URL of a JPEG, PNG or WebP image (at most 16 MiB and 25 megapixels), fetched like a send's media; " +
            "wagate crops its centre square and converts it to a 640 × 640 JPEG, as WhatsApp Web does.",
          examples: ["https://example.com/logo.png"],
          errorMessage: `mediaUrl must be an https URL of at most ${MEDIA_URL_MAX_LENGTH} characters`,
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** The request of `PUT /v1/groups/{groupId}/picture`: the phone that acts, and the image. */
export const GroupPictureBody = explainUnknownFields(
  named(
    "GroupPictureRequest",
    Type.Object(
      {
        fromPhoneId: Type.String({
          minLength: 1,
          maxLength: 64,
          description: "The phone that changes the picture, as its E.164 number or its phone id.",
          examples: ["+14155550123"],
          errorMessage: "fromPhoneId must be the phone's E.164 number or id",
        }),
        mediaUrl: PictureBody.properties.mediaUrl,
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

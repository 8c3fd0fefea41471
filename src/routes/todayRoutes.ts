// The routes of today's clients (the Open Shop Channel's v3 and v4 APIs, docs/api.md): each a fixed
// file of the build. The default host answers at the OSC's own paths; every other host under
// `/hosts/<host>/`, the folder its package files live in (packageFileLayout.ts).

/** The files of today's API, by version and name, relative to a host's prefix. */
export const TODAY_ENDPOINTS = ["information", "contents", "featured-app"] as const;
export const TODAY_VERSIONS = ["v4", "v3"] as const;

export type TodayRouteId = `${"" | "hosts-"}${(typeof TODAY_VERSIONS)[number]}-${(typeof TODAY_ENDPOINTS)[number]}`;

/** What each endpoint returns, and the schema of its 200 body. */
const RETURNS = {
  information: { returns: "the host's name, description, app count, categories and platforms", schema: "information" },
  contents: { returns: "every app of the host, as today's clients read it", schema: "Contents" },
  "featured-app": { returns: "the app of the day (404 when none qualifies)", schema: "App" },
} as const;

export type TodaySchema = "information" | "v4Contents" | "v3Contents" | "v4App" | "v3App";

export interface TodayRoute {
  id: TodayRouteId;
  path: string;
  file: string;
  returns: string;
  schema: TodaySchema;
}

function schemaOf(version: (typeof TODAY_VERSIONS)[number], endpoint: (typeof TODAY_ENDPOINTS)[number]): TodaySchema {
  const { schema } = RETURNS[endpoint];
  return schema === "information" ? schema : `${version}${schema}`;
}

export const TODAY_ROUTES: readonly TodayRoute[] = (["", "hosts-"] as const).flatMap((prefix) =>
  TODAY_VERSIONS.flatMap((version) =>
    TODAY_ENDPOINTS.map((endpoint): TodayRoute => {
      const file = `${prefix === "" ? "" : "hosts/{host}/"}api/${version}/${endpoint}`;
      return {
        id: `${prefix}${version}-${endpoint}`,
        path: `/${file}`,
        file,
        returns: `${RETURNS[endpoint].returns}${prefix === "" ? " (the default host)" : " (a host other than the default)"}`,
        schema: schemaOf(version, endpoint),
      };
    }),
  ),
);

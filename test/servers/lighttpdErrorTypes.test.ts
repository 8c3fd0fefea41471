// lighttpd's stat cache keeps the type of a file it sends, the shared error file (the JSON 404 and
// 405 bodies) included, typed by the conditions of whichever request read it first. A package
// file's or site page's condition types every file it reaches by its own rule, so a missing icon
// read first made the API's next 404 an image/png. Each request below is sent on a fresh server
// right after one of another kind, so the cache holds what the one before it made of the file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRaw } from "../../src/check/runConformance.js";
import { RESPONSE_HEADERS } from "../../src/routes/routeTable.js";
import { buildSite, type RunningServer } from "../support/servers/common.js";
import { startLighttpd } from "../support/servers/lighttpd.js";

const JSON_TYPE = RESPONSE_HEADERS["Content-Type"];

/** What lighttpd answered, status and type, for one request. */
async function answer(server: RunningServer, method: string, target: string) {
  const res = await sendRaw(server.url, method, target);
  return { method, target, status: res.status, type: res.headers["content-type"] };
}

describe("lighttpd types its error bodies the API's way, whichever request read them first", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startLighttpd(await buildSite(["lighttpd"]));
  });
  afterAll(() => server?.stop());

  it("answers an API 404 right after a missing icon's with JSON, and the icon's too", async () => {
    const icon = await answer(server, "GET", "/hbb/nosuch/icon.png");
    const api = await answer(server, "GET", "/v1/nosuch");
    expect([icon, api]).toEqual([
      { method: "GET", target: "/hbb/nosuch/icon.png", status: 404, type: JSON_TYPE },
      { method: "GET", target: "/v1/nosuch", status: 404, type: JSON_TYPE },
    ]);
  });

  it("answers every 404 and 405 with JSON, each right after one of another kind", async () => {
    const requests: [string, string, number][] = [
      ["GET", "/hbb/nosuch/nosuch.zip", 404],
      ["GET", "/v1/nosuch", 404],
      ["GET", "/unzipped_apps/nosuch/apps/nosuch/boot.dol", 404],
      ["PUT", "/v1/hosts", 405],
      ["GET", "/unzipped_apps/nosuch/apps/nosuch/meta.xml", 404],
      ["GET", "/browse/no-such-file-shopfront.css", 404],
      ["GET", "/v1/nosuch", 404],
      ["GET", "/browse/no-such-page-shopfront/", 404],
      ["PUT", "/v1/hosts", 405],
      ["GET", "/hbb/nosuch/icon.png", 404],
    ];
    const answers = [];
    for (const [method, target] of requests) answers.push(await answer(server, method, target));
    expect(answers).toEqual(requests.map(([method, target, status]) => ({ method, target, status, type: JSON_TYPE })));
  });
});

// The log parsers on samples written after each format's documentation (test/fixtures/logs), the
// URL pattern, and the line splitter at every chunk boundary.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  cloudFrontParser,
  detectFormat,
  isBadLine,
  parseCombinedLine,
  parseS3Line,
  unescapeField,
  type ParsedLine,
} from "../../src/stats/logFormats.js";
import { archiveUrlPatterns, compileUrlPattern } from "../../src/stats/urlPattern.js";
import { LineSplitter } from "../../src/stats/splitLines.js";
import { isBot } from "../../src/stats/countDownloads.js";
import { UsageError } from "../../src/util/errors.js";
import { FIXTURES } from "../support/helpers.js";

const LOGS = join(FIXTURES, "logs");

function fixtureLines(file: string): string[] {
  return readFileSync(join(LOGS, file), "utf8").split(/\r?\n/).slice(0, -1);
}

describe("combined log format", () => {
  const lines = fixtureLines("combined.log");

  it("reads a request, an IPv6 client, a query string and a referer with one", () => {
    expect(parseCombinedLine(lines[0]!)).toEqual({
      method: "GET",
      path: "/hbb/snake/snake.zip",
      status: 200,
      client: "203.0.113.5",
      userAgent: "HomebrewBrowser/0.3.9e",
    });
    expect(parseCombinedLine(lines[1]!)).toEqual({
      method: "GET",
      path: "/hbb/ZapShot/ZapShot.zip?cache=1",
      status: 200,
      client: "2001:db8::1",
      userAgent: "Mozilla/5.0 (Nintendo Wii; U; ; 3642; en)",
    });
  });

  it("undoes nginx's \\xHH escapes in the user agent, UTF-8 included", () => {
    expect(parseCombinedLine(lines[6]!)).toMatchObject({
      status: 206,
      userAgent: 'Mozilla/5.0 (X11; Linux) FlashGet "split" é',
    });
  });

  it('reads a request line that is "-" or binary junk as a request with no path', () => {
    expect(parseCombinedLine(lines[15]!)).toMatchObject({ method: "-", path: "", status: 400 });
    expect(parseCombinedLine(lines[16]!)).toMatchObject({ path: "", status: 400 });
    expect((parseCombinedLine(lines[16]!) as { method: string }).method).toMatch(/^\u0016\u0003/);
  });

  it("reports lines it cannot read, with why", () => {
    expect(parseCombinedLine(lines[18]!)).toEqual({ bad: "no [time] field" });
    expect(parseCombinedLine(lines[19]!)).toEqual({ bad: "a quote is not closed" });
    expect(parseCombinedLine('1.2.3.4 - - [t] "GET / HTTP/1.1" 2xx 0 "-" "-"')).toEqual({
      bad: "the status is not a number",
    });
    expect(parseCombinedLine('1.2.3.4 - - [t] "GET / HTTP/1.1"x 200 0 "-" "-"')).toEqual({
      bad: "a quoted field runs into the next",
    });
  });

  it("accepts fields after the user agent (nginx's $http_x_forwarded_for)", () => {
    expect(parseCombinedLine(lines[21]!)).toMatchObject({
      path: "/hbb/240pTest/240pTest.zip",
      userAgent: "Wii Homebrew Browser",
    });
  });

  it("reads Apache's \\\" and \\\\ escapes, the Common Log Format and user names with spaces", () => {
    const apache = fixtureLines("apache.log");
    expect(parseCombinedLine(apache[0]!)).toMatchObject({
      client: "192.0.2.30",
      userAgent: 'Mozilla/4.08 [en] (Win98; I ;Nav) "quoted" \\ back',
    });
    expect(parseCombinedLine(apache[1]!)).toEqual({
      method: "GET",
      path: "/hbb/ZapShot/ZapShot.zip",
      status: 200,
      client: "192.0.2.31",
      userAgent: "",
    });
    expect(parseCombinedLine(apache[2]!)).toMatchObject({ client: "::ffff:192.0.2.32", userAgent: "Yahoo! Slurp" });
    expect(parseCombinedLine(apache[3]!)).toMatchObject({ client: "192.0.2.33", status: 200 });
  });

  it("unescapes only what the servers escape", () => {
    expect(unescapeField("plain")).toBe("plain");
    expect(unescapeField("a\\x5Cb\\qc")).toBe("a\\b\\qc");
    expect(unescapeField("\\x4")).toBe("\\x4");
  });
});

describe("S3 server access log format", () => {
  const lines = fixtureLines("s3.log");

  it("reads an object GET with the trailing fields S3 has added", () => {
    expect(parseS3Line(lines[0]!)).toEqual({
      method: "GET",
      path: "/hbb/snake/snake.zip",
      status: 200,
      client: "192.0.2.3",
      userAgent: "HomebrewBrowser/0.3.9e",
    });
  });

  it("reads website GETs, IPv6, HEADs and the older layout that ends at the user agent", () => {
    expect(parseS3Line(lines[1]!)).toMatchObject({
      method: "GET",
      client: "2001:db8::5",
      path: "/hbb/ZapShot/ZapShot.zip?x-source=forum",
      userAgent: "Mozilla/5.0 (Nintendo Wii; U; ; 3642; en)",
    });
    expect(parseS3Line(lines[2]!)).toMatchObject({ method: "HEAD", status: 200 });
    expect(parseS3Line(lines[9]!)).toMatchObject({ method: "GET", path: "/hbb/snake-deluxe/snake-deluxe.zip" });
  });

  it("gives operations other than an object's their whole name, so they are never GETs", () => {
    expect(parseS3Line(lines[6]!)).toMatchObject({ method: "REST.GET.ACL", path: "/hbb/snake/snake.zip?acl" });
    expect(parseS3Line(lines[7]!)).toMatchObject({ method: "REST.GET.VERSIONING" });
    expect(parseS3Line(lines[11]!)).toMatchObject({ method: "EXPIRE", path: "", status: 0, client: "-" });
  });

  it("reports a cut line", () => {
    expect(parseS3Line(lines[10]!)).toEqual({ bad: "a quote is not closed" });
    expect(isBadLine(parseS3Line(fixtureLines("combined.log")[0]!))).toBe(true);
  });
});

describe("CloudFront standard log format", () => {
  const lines = fixtureLines("cloudfront.log");
  const parseAll = (input: string[]): ParsedLine[] => {
    const parse = cloudFrontParser();
    return input.map((line) => parse(line));
  };

  it("finds the columns by the #Fields line and decodes the user agent", () => {
    const parsed = parseAll(lines);
    expect(parsed.slice(0, 2)).toEqual(["comment", "comment"]);
    expect(parsed[2]).toEqual({
      method: "GET",
      path: "/hbb/snake/snake.zip",
      status: 200,
      client: "192.0.2.100",
      userAgent: "HomebrewBrowser/0.3.9e",
    });
    expect(parsed[3]).toMatchObject({ client: "2001:db8::7", userAgent: "Mozilla/5.0 (Nintendo Wii; U; ; 3642; en)" });
    expect(parsed[9]).toMatchObject({ path: "/hbb/snake%2Ddeluxe/snake-deluxe.zip" });
    expect(parsed[10]).toEqual({ bad: "too few fields" });
  });

  it("follows another column order", () => {
    const parsed = parseAll([
      "#Fields: sc-status cs(User-Agent) cs-uri-stem c-ip cs-method",
      "200\tcurl/8.5.0\t/hbb/snake/snake.zip\t192.0.2.1\tGET",
    ]);
    expect(parsed[1]).toEqual({
      method: "GET",
      path: "/hbb/snake/snake.zip",
      status: 200,
      client: "192.0.2.1",
      userAgent: "curl/8.5.0",
    });
  });

  it("calls data bad without a #Fields line naming every column it needs", () => {
    expect(isBadLine(parseAll([lines[2]!])[0]!)).toBe(true);
    expect(isBadLine(parseAll(["#Fields: date time c-ip", lines[2]!])[1]!)).toBe(true);
  });
});

describe("format detection", () => {
  it("knows each format by its first line", () => {
    expect(detectFormat(fixtureLines("combined.log")[0]!)).toBe("combined");
    expect(detectFormat(fixtureLines("apache.log")[1]!)).toBe("combined");
    expect(detectFormat(fixtureLines("s3.log")[0]!)).toBe("s3");
    expect(detectFormat(fixtureLines("cloudfront.log")[0]!)).toBe("cloudfront");
    expect(detectFormat("just some text")).toBeUndefined();
  });
});

describe("bots", () => {
  it("are the user agents that say so, and only those", () => {
    for (const agent of [
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Mozilla/5.0 (compatible; YandexBot/3.0)",
      "Yahoo! Slurp",
      "facebookexternalhit/1.1",
      "Bytespider",
      "Mozilla/5.0 (compatible; SemrushBot/7~bl) crawler",
      "WhatsApp/2.23 link preview",
    ])
      expect(isBot(agent), agent).toBe(true);
    for (const agent of ["curl/8.5.0", "Wget/1.21.4", "HomebrewBrowser/0.3.9e", "", "aria2/1.37.0"])
      expect(isBot(agent), agent).toBe(false);
  });
});

describe("--url-pattern", () => {
  const pattern = compileUrlPattern("/hbb/{name}/{name}.zip");

  it("defaults to every URL of a host's archives, the host's folder as it is whatever its name", () => {
    const archives = [
      "hbb/{name}/{name}.zip",
      ...["api", "api/v3", "api/v4"].map((a) => `${a}/contents/{name}/{name}.zip`),
    ];
    expect(archiveUrlPatterns("primary", "primary")).toEqual(archives.map((a) => `/${a}`));
    for (const host of ["themes", "shopfrontprobe"])
      expect(archiveUrlPatterns(host, "primary")).toEqual(archives.map((a) => `/hosts/${host}/${a}`));
  });

  it("matches a name that appears twice only when both are the same", () => {
    expect(pattern.match("/hbb/snake/snake.zip")).toBe("snake");
    expect(pattern.match("/hbb/snake/ZapShot.zip")).toBeUndefined();
    expect(pattern.match("/hbb/snake/snake.zip/")).toBeUndefined();
    expect(pattern.match("/hbb/snake/snake.zip.bak")).toBeUndefined();
  });

  it("ignores the query string and decodes %XX, a bad escape matching nothing", () => {
    expect(pattern.match("/hbb/snake/snake.zip?x=1&y=/hbb")).toBe("snake");
    expect(pattern.match("/hbb/%73nake/sn%61ke.zip")).toBe("snake");
    expect(pattern.match("/hbb/snake/snake%zz.zip")).toBeUndefined();
    expect(pattern.match("/hbb/snake/snake%E9.zip")).toBeUndefined();
  });

  it("matches only names that pass the name rule", () => {
    expect(pattern.match("/hbb/con/con.zip")).toBeUndefined();
    expect(pattern.match("/hbb/a%2Fb/a%2Fb.zip")).toBeUndefined();
    expect(pattern.match("/hbb/../...zip")).toBeUndefined();
    expect(pattern.match(`/hbb/${"a".repeat(65)}/${"a".repeat(65)}.zip`)).toBeUndefined();
  });

  it("takes every other character literally", () => {
    const literal = compileUrlPattern("/files/(v1)+[x]/{name}.*$");
    expect(literal.match("/files/(v1)+[x]/snake.*$")).toBe("snake");
    expect(literal.match("/files/v1+x/snake.zip")).toBeUndefined();
    expect(literal.match("/files/(v1)+[x]/snake.zip")).toBeUndefined();
    expect(compileUrlPattern("/dl/{name}.zip").match("/dl/snake.deluxe.zip")).toBe("snake.deluxe");
  });

  it("refuses a pattern without {name} or that is not a path", () => {
    expect(() => compileUrlPattern("/hbb/snake.zip")).toThrow(UsageError);
    expect(() => compileUrlPattern("hbb/{name}.zip")).toThrow(UsageError);
    expect(() => compileUrlPattern("/hbb/{name}.zip?x=1")).toThrow(UsageError);
  });
});

describe("LineSplitter", () => {
  const text = "first line\r\nsecond é line\n\nfourth\nlast without newline";
  const bytes = Buffer.from(text);
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) starts.push(i + 1);
  const all = text.split("\n").map((line, i) => [line.replace(/\r$/, ""), i + 1] as const);

  function split(cuts: number[], skipBefore: number): (readonly [string, number])[] {
    const out: (readonly [string, number])[] = [];
    const splitter = new LineSplitter((line, n) => out.push([line, n]));
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      splitter.push(bytes.subarray(from, cut), skipBefore);
      from = cut;
    }
    splitter.end(skipBefore);
    return out;
  }

  it("gives every line with its number wherever the chunks are cut", () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (let second = cut; second <= bytes.length; second += 3)
        expect(split([cut, second], 0), `cuts ${cut}, ${second}`).toEqual(all.filter(([line]) => line !== ""));
    }
  });

  it("passes over exactly the lines that start before skipBefore", () => {
    for (let skip = 0; skip <= bytes.length; skip++) {
      const expected = all.filter(([line, n]) => line !== "" && starts[n - 1]! >= skip);
      for (let cut = 0; cut <= bytes.length; cut += 2)
        expect(split([cut], skip), `skip ${skip}, cut ${cut}`).toEqual(expected);
    }
  });
});

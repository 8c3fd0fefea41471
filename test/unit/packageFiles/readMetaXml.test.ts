import { describe, expect, it } from "vitest";
import {
  decodeMetaXmlBytes,
  parseReleaseDate,
  parseMetaXml,
  type MetaXml,
} from "../../../src/packageFiles/parseMetaXml.js";

function read(bytes: Uint8Array | string): MetaXml {
  const result = parseMetaXml(typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes);
  if (!result.ok) throw new Error(`not read: ${result.reason}`);
  return result.meta;
}

const latin1 = (s: string): Buffer => Buffer.from(s, "latin1");

describe("parseMetaXml", () => {
  it("reads the common shape: declaration, tabs, every field, a flag", () => {
    const meta = read(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<app version="1">
\t<name> USB Loader</name>
\t<coder>Someone</coder>
\t<version>3.0 r1</version>
\t<release_date>20090505123456</release_date>
\t<short_description>Loads games</short_description>
\t<long_description>Line one.
\t\tLine two.</long_description>
\t<ahb_access/>
</app>
`);
    expect(meta).toEqual({
      name: "USB Loader",
      coder: "Someone",
      version: "3.0 r1",
      release_date: Date.UTC(2009, 4, 5, 12, 34, 56) / 1000,
      short_description: "Loads games",
      long_description: "Line one.\nLine two.",
      no_ios_reload: false,
      ahb_access: true,
      encoding: "utf-8",
    });
  });

  it("reads Windows-1252 bytes behind a UTF-8 byte order mark, whatever the declaration says", () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      latin1(`<?xml version="1.0" encoding="UTF-8"?><app version="1"><name>Tétris</name>`),
      Buffer.from([0x3c, 0x63, 0x6f, 0x64, 0x65, 0x72, 0x3e, 0x80, 0x93, 0x94]), // <coder>€“”
      latin1(`</coder></app>`),
    ]);
    const meta = read(bytes);
    expect(meta.encoding).toBe("windows-1252");
    expect(meta.name).toBe("Tétris");
    expect(meta.coder).toBe("€“”");
  });

  it("keeps valid UTF-8 as UTF-8 even when the declaration names ISO-8859-1", () => {
    const meta = read(`<?xml version="1.0" encoding="ISO-8859-1"?><app><name>Zoë 日本</name></app>`);
    expect(meta).toMatchObject({ name: "Zoë 日本", encoding: "utf-8" });
  });

  it("reads UTF-16 with a byte order mark", () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<app><name>Wide</name></app>`, "utf16le")]);
    expect(read(bytes)).toMatchObject({ name: "Wide", encoding: "utf-16" });
  });

  it("skips comments holding -- and elements, to the first -->", () => {
    const meta = read(`<app version="1">
  <!-- old -- do not use -- <name>Old</name> <coder>x</coder> -->
  <name>New</name>
  <!--   // remove this line to enable arguments
  <arguments><arg>--ios=250</arg></arguments>
  // remove this line -->
  <coder>Team</coder>
</app>`);
    expect(meta).toMatchObject({ name: "New", coder: "Team" });
  });

  it("takes CDATA as written and decodes entities outside it, leaving a bare & alone", () => {
    const meta = read(`<app>
<name>A &amp; B &lt;C&gt; &quot;D&quot; &apos;E&apos; &#233;&#xE9; AT&T &nbsp;</name>
<long_description><![CDATA[<b>bold</b> &amp; kept]]> then &amp;</long_description>
</app>`);
    expect(meta.name).toBe(`A & B <C> "D" 'E' éé AT&T &nbsp;`);
    expect(meta.long_description).toBe("<b>bold</b> &amp; kept then &");
  });

  it("keeps line breaks in long_description (CRLF too) and folds them elsewhere", () => {
    const meta = read(
      "<app><short_description>one\r\n  two</short_description><long_description>\r\n  a\r\n\r\n  b  \r\n</long_description></app>",
    );
    expect(meta.short_description).toBe("one two");
    expect(meta.long_description).toBe("a\n\nb");
  });

  it("reads <author> where there is no <coder>, and prefers <coder>", () => {
    expect(read("<app><author>Ann</author></app>").coder).toBe("Ann");
    expect(read("<app><author>Ann</author><coder>Bob</coder></app>").coder).toBe("Bob");
  });

  it("leaves missing fields out", () => {
    expect(read(`<app version="1"></app>`)).toEqual({ no_ios_reload: false, ahb_access: false, encoding: "utf-8" });
  });

  it("survives a wrong closing tag, an unclosed element and a missing </app>", () => {
    const meta = read(`<app version="1">
    <name>WiiX</name>
    <version>1.2</name>
    <coder>coder<coder>
    <short_description>Short`);
    expect(meta).toMatchObject({ name: "WiiX", version: "1.2", coder: "coder", short_description: "Short" });
  });

  it("reads the flags", () => {
    expect(read("<app><no_ios_reload/><ahb_access></ahb_access></app>")).toMatchObject({
      no_ios_reload: true,
      ahb_access: true,
    });
  });

  it("warns about a release date in no known form and leaves it out", () => {
    const result = parseMetaXml(Buffer.from("<app><release_date>N/A</release_date></app>"));
    expect(result.ok && result.meta.release_date).toBe(undefined);
    expect(result.ok && result.warnings).toEqual([
      `release_date "N/A" is not yyyyMMddHHmmss, yyyyMMddHHmm or yyyyMMdd`,
    ]);
  });

  it("fails where no <app> element can be found", () => {
    expect(parseMetaXml(Buffer.from([0, 1, 2, 0xff]))).toEqual({ ok: false, reason: "it has no <app> element" });
    expect(parseMetaXml(Buffer.from(" \n"))).toEqual({ ok: false, reason: "the file is empty" });
    expect(parseMetaXml(Buffer.from("<!-- <app><name>x</name></app> -->"))).toMatchObject({ ok: false });
  });
});

describe("parseReleaseDate", () => {
  it.each([
    ["20090505123456", Date.UTC(2009, 4, 5, 12, 34, 56)],
    ["200905051234", Date.UTC(2009, 4, 5, 12, 34)],
    ["20090505", Date.UTC(2009, 4, 5)],
    [" 20000229 ", Date.UTC(2000, 1, 29)],
  ])("reads %j as Unix seconds in UTC", (text, ms) => {
    expect(parseReleaseDate(text)).toBe(ms / 1000);
  });

  it.each(["2009", "2009050", "20090231", "20091301", "20090505246000", "2009-05-05", "N/A", ""])(
    "refuses %j",
    (text) => {
      expect(parseReleaseDate(text)).toBe(undefined);
    },
  );
});

describe("decodeMetaXmlBytes", () => {
  it("drops the byte order mark", () => {
    expect(decodeMetaXmlBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x41]))).toEqual({ text: "A", encoding: "utf-8" });
  });
});

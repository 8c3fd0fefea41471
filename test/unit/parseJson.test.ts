import { describe, expect, it } from "vitest";
import { invalidUtf8Offset, MAX_SCAN_DEPTH, parseJson, scanJson } from "../../src/validate/parseJson.js";

const parse = (text: string | Uint8Array) => parseJson(typeof text === "string" ? Buffer.from(text) : text);
const codes = (text: string | Uint8Array) => parse(text).findings.map((f) => f.code);

describe("parseJson", () => {
  it("parses an array as long as a manifest file may hold (one element an argument would overflow the stack)", () => {
    const text = `{"a": [${"0,".repeat(400_000)}{"b": 1}], "b": {"c": 2}}`;
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    const { value, findings } = parse(text);
    expect(findings).toEqual([]);
    expect((value as { a: unknown[] }).a).toHaveLength(400_001);
  });

  it("parses valid JSON with no findings", () => {
    expect(parse('{"a": [1, {"b": "x"}], "c": null}')).toEqual({
      value: { a: [1, { b: "x" }], c: null },
      findings: [],
    });
  });

  it.each([
    ['{\n  "a": 1,\n}', 3, 1, "trailing comma"],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ',' or '}' after the value of \"a\""],
    ["{'a': 1}", 1, 2, "property name in double quotes"],
    ['{"a": tru}', 1, 7, "expected a value"],
    ['{"a": "x', 1, 9, "unterminated string"],
    ['{"a": "tab\there"}', 1, 11, "control character U+0009 inside a string"],
    ['{"a": "\\x"}', 1, 8, "invalid escape"],
    ['{"a": 01}', 1, 8, "expected ',' or '}'"],
    ['{"a": 1} {', 1, 10, "after the end of the JSON value"],
    ["[1, 2,]", 1, 7, "trailing comma before ']'"],
    ['{"a": 1', 1, 8, "the end of the file"],
  ])("reports a syntax error in %j at line %i, column %i", (text, line, column, message) => {
    const { findings, value } = parse(text);
    expect(value).toBeUndefined();
    expect(findings).toHaveLength(1);
    expect(findings[0]!.code).toBe("JSON_SYNTAX");
    expect(findings[0]!.message).toContain(`line ${line}, column ${column}:`);
    expect(findings[0]!.message).toContain(message);
  });

  it("reports duplicate keys with their pointers, at any depth", () => {
    const { findings, value } = parse('{"zip_size": 1, "a": {"x": 1, "x": 2}, "zip_size": 999, "a/b": 0, "a/b": 1}');
    expect(value).toBeDefined();
    expect(findings.map((f) => [f.code, f.pointer])).toEqual([
      ["DUPLICATE_KEY", "/a/x"],
      ["DUPLICATE_KEY", "/zip_size"],
      ["DUPLICATE_KEY", "/a~1b"],
    ]);
  });

  it("does not mistake colons and quotes inside strings for keys", () => {
    expect(codes('{"a": "x:y \\": z", "b": "\\\\"}')).toEqual([]);
  });

  it("reports an empty or blank file", () => {
    expect(codes("")).toEqual(["EMPTY_FILE"]);
    expect(codes(" \n\t ")).toEqual(["EMPTY_FILE"]);
  });

  it("ignores a UTF-8 byte order mark with a warning", () => {
    const result = parse("\ufeff{}");
    expect(result.value).toEqual({});
    expect(result.findings.map((f) => [f.code, f.severity])).toEqual([["BYTE_ORDER_MARK", "warning"]]);
  });

  it("reports invalid UTF-8 with the line and offset of the first bad byte", () => {
    const bytes = Buffer.concat([Buffer.from('{\n"a": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const { findings } = parse(bytes);
    expect(findings.map((f) => f.code)).toEqual(["INVALID_UTF8"]);
    expect(findings[0]!.message).toContain("byte 0xc3 at line 2, byte offset 8");
  });

  it("reports a NUL byte as a syntax error, not a crash", () => {
    expect(codes('{"a": 1}\u0000')).toEqual(["JSON_SYNTAX"]);
    expect(codes('{"a": "x\u0000y"}')).toEqual(["JSON_SYNTAX"]);
  });

  it("survives values nested far deeper than the scanner follows", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(parse(deep).value).toBeDefined();
    const broken = `${"[".repeat(100_000)}x`;
    const result = parse(broken);
    expect(result.findings[0]!.message).toContain(`deeper than ${MAX_SCAN_DEPTH} levels`);
    expect(scanJson(broken).error).toBeDefined();
  });
});

describe("invalidUtf8Offset", () => {
  it.each([
    [[0x41, 0x80], 1],
    [[0xc0, 0x80], 0],
    [[0xe0, 0x80, 0x80], 0],
    [[0xed, 0xa0, 0x80], 0],
    [[0xf4, 0x90, 0x80, 0x80], 0],
    [[0x41, 0xe2, 0x82], 1],
    [[0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x8e, 0xae], -1],
  ])("finds the first bad byte of %j at %i", (bytes, offset) => {
    expect(invalidUtf8Offset(Uint8Array.from(bytes))).toBe(offset);
  });
});

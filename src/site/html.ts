// HTML templating with one escaping rule. Every manifest string is untrusted, so the `markup` tag
// escapes each value it is given unless it is already Html (made by the tag itself); nothing else
// builds markup. (It is not called `html`: prettier would reformat templates tagged so.) Escaped text is also ASCII: every character beyond it becomes a numeric reference,
// so the site's bytes, like the API's, mean the same whatever charset a host claims.

/** Markup that is safe as it is: only `markup` makes it. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | readonly HtmlValue[] | false | null | undefined;

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML text and quoted attribute values: `& < > " '` and every non-ASCII character escaped. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']|[^\x20-\x7e\t\n\r]/gu,
    (c) => ENTITIES[c] ?? `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`,
  );
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === false || value === null || value === undefined) return "";
  return escapeHtml(String(value));
}

/** A template whose every interpolated value is escaped (arrays joined; false, null and undefined left out). */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let text = strings[0]!;
  values.forEach((value, i) => (text += render(value) + strings[i + 1]!));
  return new Html(text);
}

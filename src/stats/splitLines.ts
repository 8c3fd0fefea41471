// A stream of bytes -> its lines, numbered, without holding more than a chunk and one line. Each
// chunk's complete lines are decoded in one go and split as a string, which is several times faster
// than decoding line by line (readline). Lines that start before a byte offset can be passed over:
// that is how a log that grew since it was counted skips what was counted.

/** A line longer than this is cut (a log line never is; a file that is no log may have no newlines). */
export const MAX_LINE_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

export type OnLine = (line: string, number: number) => void;

export class LineSplitter {
  /** Bytes pushed so far. */
  private offset = 0;
  /** The unfinished last line, and the offset it started at. */
  private carry: Buffer | undefined;
  private carryStart = 0;
  /** Lines seen, passed over or not. */
  lines = 0;

  constructor(private readonly onLine: OnLine) {}

  /** Splits `chunk`; lines starting before `skipBefore` are numbered but not passed on. */
  push(chunk: Buffer, skipBefore = 0): void {
    const chunkStart = this.offset;
    this.offset += chunk.length;
    let pos = 0;
    if (this.carry) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline < 0) {
        if (this.carry.length < MAX_LINE_BYTES) this.carry = Buffer.concat([this.carry, chunk]);
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, newline)]).subarray(0, MAX_LINE_BYTES);
      this.carry = undefined;
      this.emit(line.toString("utf8"), this.carryStart >= skipBefore);
      pos = newline + 1;
    }
    if (chunkStart + pos < skipBefore) {
      // Pass over every line that starts before skipBefore: up to the newline that ends the line
      // holding byte skipBefore - 1 (or, when that line goes on in the next chunk, the last newline).
      let end = chunk.indexOf(NEWLINE, skipBefore - 1 - chunkStart);
      if (end < 0) end = chunk.lastIndexOf(NEWLINE);
      for (let i = chunk.indexOf(NEWLINE, pos); i >= 0 && i <= end; i = chunk.indexOf(NEWLINE, i + 1)) this.lines++;
      if (end >= pos) pos = end + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= pos) {
      const text = chunk.toString("utf8", pos, last);
      let start = 0;
      for (;;) {
        const newline = text.indexOf("\n", start);
        this.emit(text.slice(start, newline < 0 ? text.length : newline), true);
        if (newline < 0) break;
        start = newline + 1;
      }
      pos = last + 1;
    }
    if (pos < chunk.length) {
      this.carry = Buffer.from(chunk.subarray(pos, pos + MAX_LINE_BYTES));
      this.carryStart = chunkStart + pos;
    }
  }

  /** The last line, when the bytes did not end with a newline. */
  end(skipBefore = 0): void {
    if (!this.carry) return;
    const line = this.carry;
    this.carry = undefined;
    this.emit(line.toString("utf8"), this.carryStart >= skipBefore);
  }

  private emit(line: string, pass: boolean): void {
    this.lines++;
    if (!pass) return;
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.length > 0) this.onLine(text, this.lines);
  }
}

import { describe, expect, it } from "vitest";
import { spillPointer, UNSAVED } from "../spill/spill-pointer.js";
import { formatCount, formatSize, lineRange } from "../text/counts.js";
import { omissionMarker, spillNotice } from "./spill-notice.js";

const PATH = "/s/conch/spill/20250102T030405678Z-1a2b3c4d-shell_command.txt";
const OMITTED = { firstLine: 4212, lastLine: 1_997_500, bytes: 14_823_456, startByte: 0 };

describe("omissionMarker", () => {
  it("names the lines left out, their size, the file and the first 200 of them to read", () => {
    expect(omissionMarker(OMITTED, spillPointer({ path: PATH, gap: null }, null))).toBe(
      `[… lines 4,212–1,997,500 omitted (14.8 MB); full output: ${PATH} — read a range with: sed -n '4212,4411p' ${PATH}]`,
    );
    expect(
      omissionMarker(
        { firstLine: 7, lastLine: 7, bytes: 1, startByte: 0 },
        { kind: "file", path: PATH, gap: null },
      ),
    ).toBe(`[… line 7 omitted (1 byte); full output: ${PATH} — read a range with: sed -n '7,7p' ${PATH}]`);
  });

  it("inside one line, of a file that starts where the output does: the bytes, and reads by byte", () => {
    const inLine = { firstLine: 1, lastLine: 1, bytes: 4_980_000, startByte: 20_000 };
    expect(omissionMarker(inLine, { kind: "file", path: PATH, gap: null }, 0)).toBe(
      `[… 5.0 MB of line 1 omitted (bytes 20,001–5,000,000 of the output); full output: ${PATH} — read 8,000 bytes from there with: tail -c +20001 ${PATH} | head -c 8000; find where a string is with: grep -ob 'STRING' ${PATH}]`,
    );
    // Where the file's bytes are not known to be the output's, lines as before.
    expect(omissionMarker(inLine, { kind: "file", path: PATH, gap: null })).toBe(
      `[… line 1 omitted (5.0 MB); full output: ${PATH} — read a range with: sed -n '1,1p' ${PATH}]`,
    );
  });

  it("quotes a path a shell would not read literally", () => {
    const path = "/home/o'b r/x.txt";
    expect(
      omissionMarker(
        { firstLine: 1, lastLine: 300, bytes: 999, startByte: 0 },
        { kind: "file", path, gap: null },
      ),
    ).toBe(
      "[… lines 1–300 omitted (999 bytes); full output: '/home/o'\\''b r/x.txt' — " +
        "read a range with: sed -n '1,200p' '/home/o'\\''b r/x.txt']",
    );
  });

  it("says what the file lacks when it could not keep the whole output, and reads a range it holds", () => {
    // The file keeps lines 1-4,500,000, a marker line, then the output's lines from 148,000,001 on.
    const gap = {
      firstLine: 4_500_001,
      lastLine: 148_000_000,
      bytes: 1_100_000_000,
      keptLines: 4_500_000,
      resumeLine: 148_000_001,
      shift: 148_000_001 - 4_500_002,
    };
    const lacks =
      "(too large to keep whole: it lacks lines 4,500,001–148,000,000, 1.1 GB; after them, line N of the output is its line N−143,499,999)";
    // The omitted lines start in the part the file keeps: read there, same numbers.
    expect(omissionMarker(OMITTED, { kind: "file", path: PATH, gap })).toBe(
      `[… lines 4,212–1,997,500 omitted (14.8 MB); full output: ${PATH} ${lacks} — read a range with: sed -n '4212,4411p' ${PATH}]`,
    );
    // They start after the gap: read there, in the file's numbers.
    const late = { firstLine: 148_000_101, lastLine: 149_000_000, bytes: 9_000_000, startByte: 0 };
    expect(omissionMarker(late, { kind: "file", path: PATH, gap })).toBe(
      `[… lines 148,000,101–149,000,000 omitted (9.0 MB); full output: ${PATH} ${lacks} — read a range with: sed -n '4500102,4500301p' ${PATH}]`,
    );
    // All of them in the gap: nothing to read.
    const lost = { firstLine: 5_000_000, lastLine: 6_000_000, bytes: 8_000_000, startByte: 0 };
    expect(omissionMarker(lost, { kind: "file", path: PATH, gap })).toBe(
      `[… lines 5,000,000–6,000,000 omitted (8.0 MB); full output: ${PATH} ${lacks}, which are among the lines it lacks]`,
    );
  });

  it("says when no file was written, and why", () => {
    expect(omissionMarker(OMITTED, UNSAVED)).toBe(
      "[… lines 4,212–1,997,500 omitted (14.8 MB); the full output was not saved]",
    );
    expect(omissionMarker(OMITTED, spillPointer(null, "ENOSPC: no space left on device\u001b[2J"))).toBe(
      "[… lines 4,212–1,997,500 omitted (14.8 MB); the full output could not be saved: ENOSPC: no space left on device\\u{1b}[2J]",
    );
    expect(spillPointer(null, null)).toBe(UNSAVED);
  });
});

describe("spillNotice", () => {
  it("says where binary output was saved, and how much of it the file lacks", () => {
    expect(spillNotice(PATH, 5242880)).toBe(`[Full output (5242880 bytes) saved to ${PATH}]`);
    expect(spillNotice("/s/a.txt", 100_000_000, 32_891_234)).toBe(
      "[Output (100000000 bytes) saved to /s/a.txt with the middle 32891234 bytes omitted]",
    );
  });
});

describe("formatting", () => {
  it("counts with thousands separators, sizes in decimal units with one decimal", () => {
    expect([0, 999, 1000, 1_997_500, 12_345_678_901].map(formatCount)).toEqual([
      "0",
      "999",
      "1,000",
      "1,997,500",
      "12,345,678,901",
    ]);
    expect([0, 1, 999, 1000, 40_199, 999_960, 14_823_456, 2e9, 3e15].map(formatSize)).toEqual([
      "0 bytes",
      "1 byte",
      "999 bytes",
      "1.0 kB",
      "40.2 kB",
      "1.0 MB",
      "14.8 MB",
      "2.0 GB",
      "3000.0 TB",
    ]);
    expect([lineRange(3, 3), lineRange(1, 1000)]).toEqual(["line 3", "lines 1–1,000"]);
  });
});

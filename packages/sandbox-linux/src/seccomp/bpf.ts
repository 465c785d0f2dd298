// Classic BPF as the kernel's seccomp reads it: `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k }`,
// native byte order. Both supported architectures are little-endian, so the encoding is fixed.

const BPF_LD_W_ABS = 0x20;
const BPF_ALU_AND_K = 0x54;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;

const INSTRUCTION_BYTES = 8;
/** BPF_MAXINSNS: the kernel refuses longer programs. */
export const MAX_INSTRUCTIONS = 4096;

/** A jump target: the label of a later instruction (classic BPF only jumps forward), or "next". */
type Label = string;

export type Instruction =
  | { readonly op: "load"; readonly offset: number }
  | { readonly op: "and"; readonly mask: number }
  | { readonly op: "jeq" | "jset"; readonly k: number; readonly jt: Label; readonly jf: Label }
  | { readonly op: "ret"; readonly value: number }
  | { readonly op: "label"; readonly name: Label };

/**
 * Resolves labels to relative offsets and encodes the program. A label names the next real
 * instruction; "next" is the implicit label of the instruction right after a jump.
 */
export function assemble(program: readonly Instruction[]): Uint8Array {
  const addresses = new Map<Label, number>();
  let count = 0;
  for (const insn of program) {
    if (insn.op !== "label") count += 1;
    else if (addresses.has(insn.name)) throw new Error(`BPF label "${insn.name}" is defined twice`);
    else addresses.set(insn.name, count);
  }
  if (count > MAX_INSTRUCTIONS) {
    throw new Error(`BPF program has ${count} instructions; the kernel accepts at most ${MAX_INSTRUCTIONS}`);
  }

  const bytes = new Uint8Array(count * INSTRUCTION_BYTES);
  const view = new DataView(bytes.buffer);
  let pc = 0;
  const emit = (code: number, jt: number, jf: number, k: number): void => {
    const at = pc * INSTRUCTION_BYTES;
    view.setUint16(at, code, true);
    view.setUint8(at + 2, jt);
    view.setUint8(at + 3, jf);
    view.setUint32(at + 4, k >>> 0, true);
    pc += 1;
  };
  const jump = (label: Label): number => {
    if (label === "next") return 0;
    const target = addresses.get(label);
    if (target === undefined) throw new Error(`BPF label "${label}" is not defined`);
    const offset = target - pc - 1;
    if (offset < 0 || offset > 255) {
      throw new Error(`BPF jump to "${label}" at ${pc} needs offset ${offset}, outside 0..255`);
    }
    return offset;
  };

  for (const insn of program) {
    switch (insn.op) {
      case "label":
        break;
      case "load":
        emit(BPF_LD_W_ABS, 0, 0, insn.offset);
        break;
      case "and":
        emit(BPF_ALU_AND_K, 0, 0, insn.mask);
        break;
      case "jeq":
      case "jset":
        emit(insn.op === "jeq" ? BPF_JMP_JEQ_K : BPF_JMP_JSET_K, jump(insn.jt), jump(insn.jf), insn.k);
        break;
      case "ret":
        emit(BPF_RET_K, 0, 0, insn.value);
        break;
    }
  }
  return bytes;
}

import { expectedReceived } from "@conch/protocol";
import { ArityRulesError } from "../errors.js";
import {
  type CommandWrapper,
  compileWrappers,
  DEFAULT_WRAPPERS,
  NEVER_WRAPPERS,
  type WrapperTable,
} from "./wrappers.js";

export interface SafetyOptions {
  /** Programs looked through before the known-safe check; defaults to `DEFAULT_WRAPPERS`. */
  readonly wrappers?: readonly CommandWrapper[];
}

const DEFAULT_TABLE: WrapperTable = compileWrappers(DEFAULT_WRAPPERS);
const NEVER: ReadonlySet<string> = new Set(NEVER_WRAPPERS);
const PROGRAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;
const OPTION = /^(-[^-\s=]|--[^\s=]+)$/;
const MAX_OPERANDS = 8;

// The wrapper list configures prefix matching like the arity table does, so a bad one is a bad table.
function invalid(path: string, expected: string, received: unknown): ArityRulesError {
  return new ArityRulesError("INVALID_ARITY_TABLE", expectedReceived(path, expected, received));
}

function validateOptionList(path: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(path, "an array of options", value);
  return value.map((option: unknown, index) => {
    if (typeof option !== "string" || !OPTION.test(option)) {
      throw invalid(`${path}[${index}]`, 'an option such as "-n" or "--signal"', option);
    }
    return option;
  });
}

function validateWrapper(value: unknown, index: number): CommandWrapper {
  const path = `options.wrappers[${index}]`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(path, "an object", value);
  }
  const { name, flags, valueOptions, operands } = value as Record<string, unknown>;
  if (typeof name !== "string" || !PROGRAM_NAME.test(name)) {
    throw invalid(`${path}.name`, "a bare program name", name);
  }
  if (NEVER.has(name)) {
    throw invalid(`${path}.name`, "a program that only wraps a command, not a runner or shell", name);
  }
  if (
    operands !== undefined &&
    (typeof operands !== "number" || !Number.isInteger(operands) || operands < 0 || operands > MAX_OPERANDS)
  ) {
    throw invalid(`${path}.operands`, `an integer from 0 to ${MAX_OPERANDS}`, operands);
  }
  return {
    name,
    flags: validateOptionList(`${path}.flags`, flags),
    valueOptions: validateOptionList(`${path}.valueOptions`, valueOptions),
    operands: operands ?? 0,
  };
}

/** The validated wrapper table for these options, read from a copy so later changes cannot reach it. */
export function wrapperTable(options: SafetyOptions | undefined): WrapperTable {
  if (options === undefined) return DEFAULT_TABLE;
  if (typeof options !== "object" || options === null) throw invalid("options", "an object", options);
  const { wrappers } = options;
  if (wrappers === undefined) return DEFAULT_TABLE;
  if (!Array.isArray(wrappers)) throw invalid("options.wrappers", "an array", wrappers);
  return compileWrappers(wrappers.map(validateWrapper));
}

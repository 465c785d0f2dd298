// Sets of tree-sitter-bash node types that the walker and the redirection reader both look for.

// Nodes that are a statement of their own.
export const STATEMENTS: ReadonlySet<string> = new Set([
  "c_style_for_statement",
  "case_statement",
  "command",
  "compound_statement",
  "declaration_command",
  "for_statement",
  "function_definition",
  "if_statement",
  "list",
  "negated_command",
  "pipeline",
  "redirected_statement",
  "subshell",
  "test_command",
  "unset_command",
  "variable_assignment",
  "variable_assignments",
  "while_statement",
]);

// Nodes that are a word (or a part of one).
export const WORDS: ReadonlySet<string> = new Set([
  "word",
  "number",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "arithmetic_expansion",
  "command_substitution",
  "process_substitution",
  "brace_expression",
  "extglob_pattern",
  "regex",
]);

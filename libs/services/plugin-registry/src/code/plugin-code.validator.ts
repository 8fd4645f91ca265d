import { getLineInfo, parse, type Node, type Program } from 'acorn';

/** Where and why plugin code was refused; line and column are 1-based, as editors show them. */
export interface CodeProblem {
  kind: 'syntax' | 'no_default_export' | 'default_export_not_a_function' | 'too_deep';
  message: string;
  line: number;
  column: number;
}

interface AcornSyntaxError extends SyntaxError {
  loc?: { line: number; column: number };
}

const FUNCTION_NODES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
]);

/**
 * Checks that the source parses as an ES module whose default export is a function, the
 * shape the ordering frontend loads (`(await import(url)).default(context)`). The code is
 * only parsed, never executed: it is a tenant's code and runs in browsers, not here.
 */
export function checkPluginCode(source: string): CodeProblem | undefined {
  let program: Program;
  try {
    // No location on every node (a third of the parse's time, half its memory): the one
    // position a problem names is found from its offset.
    program = parse(source, { sourceType: 'module', ecmaVersion: 'latest' });
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const loc = (error as AcornSyntaxError).loc ?? { line: 1, column: 0 };
    return {
      // Acorn's words for running out of stack: the code may be valid, only too deep to check.
      kind: error.message.startsWith('Not enough stack space') ? 'too_deep' : 'syntax',
      // Acorn appends "(line:column)" with a 0-based column; the position is reported apart.
      message: error.message.replace(/\s*\(\d+:\d+\)$/, ''),
      line: loc.line,
      column: loc.column + 1,
    };
  }
  return checkDefaultExport(program, source);
}

function checkDefaultExport(program: Program, source: string): CodeProblem | undefined {
  for (const statement of program.body) {
    if (statement.type === 'ExportDefaultDeclaration') {
      const declaration = statement.declaration;
      if (FUNCTION_NODES.has(declaration.type)) return undefined;
      if (declaration.type === 'Identifier' && bindsFunction(program, declaration.name))
        return undefined;
      return notAFunction(declaration, source);
    }
    if (statement.type === 'ExportNamedDeclaration') {
      for (const specifier of statement.specifiers) {
        const exported = specifier.exported;
        const exportedName = exported.type === 'Identifier' ? exported.name : exported.value;
        if (exportedName !== 'default') continue;
        // `export { x as default } from './other'` names code this file does not contain.
        const local = specifier.local;
        if (statement.source === null || statement.source === undefined) {
          if (local.type === 'Identifier' && bindsFunction(program, local.name)) return undefined;
        }
        return notAFunction(specifier, source);
      }
    }
  }
  return {
    kind: 'no_default_export',
    message:
      'the module has no default export; a plugin must `export default` an (async) function taking a context',
    line: 1,
    column: 1,
  };
}

/** True when a top-level declaration of the module binds `name` to a function. */
function bindsFunction(program: Program, name: string): boolean {
  for (const statement of program.body) {
    const declaration =
      statement.type === 'ExportNamedDeclaration'
        ? (statement.declaration ?? undefined)
        : statement;
    if (!declaration) continue;
    if (declaration.type === 'FunctionDeclaration' && declaration.id?.name === name) return true;
    if (declaration.type === 'VariableDeclaration') {
      for (const declarator of declaration.declarations) {
        if (declarator.id.type === 'Identifier' && declarator.id.name === name) {
          return (
            declarator.init !== null &&
            declarator.init !== undefined &&
            FUNCTION_NODES.has(declarator.init.type)
          );
        }
      }
    }
  }
  return false;
}

function notAFunction(node: Node, source: string): CodeProblem {
  const { line, column } = getLineInfo(source, node.start);
  return {
    kind: 'default_export_not_a_function',
    message: `the default export is a ${describe(node)}, not a function; a plugin must \`export default\` an (async) function taking a context`,
    line,
    column: column + 1,
  };
}

function describe(node: Node): string {
  switch (node.type) {
    case 'ClassDeclaration':
    case 'ClassExpression':
      return 'class';
    case 'ObjectExpression':
      return 'object';
    case 'Literal':
    case 'TemplateLiteral':
      return 'literal value';
    case 'CallExpression':
      return 'call result';
    case 'Identifier':
    case 'ExportSpecifier':
      return 'binding that is not a function declared in the module';
    default:
      return node.type;
  }
}

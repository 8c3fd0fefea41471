// Which syntax of a script CloudFront Functions' JavaScript runtime 2.0 does not document. Its
// feature page lists ES 5.1 plus: const and let, async and await, template literals (not tagged),
// arrow functions, rest parameters and `**`. Everything else newer than ES 5.1 is reported here,
// from TypeScript's own parse of the script (which must be valid JavaScript: loading it checks that).
import ts from "typescript";

function describe(node: ts.Node, source: ts.SourceFile): string | undefined {
  if (ts.isForOfStatement(node)) return "for-of";
  if (ts.isSpreadElement(node) || ts.isSpreadAssignment(node)) return "spread";
  if (ts.isObjectBindingPattern(node) || ts.isArrayBindingPattern(node)) return "destructuring";
  if (
    ts.isBinaryExpression(node) &&
    ts.isObjectLiteralExpression(node.left) &&
    node.operatorToken.kind === ts.SyntaxKind.EqualsToken
  )
    return "destructuring";
  if (ts.isClassLike(node)) return "class";
  if (ts.isOptionalChain(node)) return "optional chaining";
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken) return "??";
    if (op === ts.SyntaxKind.BarBarEqualsToken || op === ts.SyntaxKind.AmpersandAmpersandEqualsToken)
      return "logical assignment";
  }
  if (ts.isShorthandPropertyAssignment(node)) return "shorthand property";
  if (ts.isMethodDeclaration(node)) return "method shorthand";
  if (ts.isComputedPropertyName(node)) return "computed property name";
  if (ts.isParameter(node) && node.initializer) return "default parameter";
  if (ts.isTaggedTemplateExpression(node)) return "tagged template";
  if ((ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) && node.asteriskToken) return "generator";
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isExportAssignment(node))
    return "module syntax";
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return "module syntax";
  if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
    return "module syntax";
  if (ts.isCatchClause(node) && !node.variableDeclaration) return "catch without binding";
  if (ts.isMetaProperty(node)) return "new.target or import.meta";
  if (ts.isBigIntLiteral(node)) return "BigInt";
  if (ts.isNumericLiteral(node) && /^0[bBoO]|_/.test(node.getText(source))) return "ES6 numeric literal";
  if (ts.isRegularExpressionLiteral(node) && /[suyd]/.test(node.text.slice(node.text.lastIndexOf("/") + 1)))
    return "regular expression flag";
  return undefined;
}

/** Each construct the runtime does not document, as "line N: what". */
export function unsupportedSyntax(code: string): string[] {
  const source = ts.createSourceFile("function.js", code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const what = describe(node, source);
    if (what) found.push(`line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

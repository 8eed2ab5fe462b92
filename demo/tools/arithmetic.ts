/**
 * Evaluates an arithmetic expression without `eval`: numbers, `+ - * / % ^`, parentheses and
 * unary minus, with the usual precedence (`^` binds tightest and associates to the right).
 *
 * @param expression The expression, such as `2 + 3 * (4 - 1)`.
 * @returns The value.
 * @throws Error when the expression is malformed or divides by zero.
 */
export function evaluateArithmetic(expression: string): number {
  const tokens = tokenize(expression);
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const take = (): string | undefined => tokens[at++];

  const primary = (): number => {
    const token = take();
    if (token === undefined) throw new Error("the expression ends too early");
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new Error("a closing parenthesis is missing");
      return value;
    }
    if (token === "-") return -power();
    if (token === "+") return power();
    const value = Number(token);
    if (!Number.isFinite(value)) throw new Error(`unexpected "${token}"`);
    return value;
  };
  const power = (): number => {
    const base = primary();
    if (peek() !== "^") return base;
    take();
    return base ** power();
  };
  const product = (): number => {
    let value = power();
    for (let op = peek(); op === "*" || op === "/" || op === "%"; op = peek()) {
      take();
      const right = power();
      if (op !== "*" && right === 0) throw new Error("division by zero");
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    for (let op = peek(); op === "+" || op === "-"; op = peek()) {
      take();
      value = op === "+" ? value + product() : value - product();
    }
    return value;
  };

  const value = sum();
  if (at < tokens.length) throw new Error(`unexpected "${tokens[at]}"`);
  return value;
}

function tokenize(expression: string): string[] {
  const source = expression.replace(/×/g, "*").replace(/÷/g, "/").replace(/\*\*/g, "^");
  const tokens: string[] = [];
  const pattern = /\s*(\d+(?:\.\d+)?|\.\d+|[-+*/%^()])/y;
  let index = 0;
  while (index < source.length) {
    if (/^\s+$/.test(source.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(source);
    if (!match) throw new Error(`unexpected "${source.slice(index).trim()[0]}"`);
    tokens.push(match[1] as string);
    index = pattern.lastIndex;
  }
  if (tokens.length === 0) throw new Error("the expression is empty");
  return tokens;
}

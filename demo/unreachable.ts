/** Marks a switch arm the compiler has proven impossible (an exhaustive `switch` on a union). */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

/**
 * Nesting depth of parsed JSON, measured without recursion (so a hostile document thousands of
 * levels deep cannot overflow the stack while it is measured): a scalar is 0 levels deep, an
 * object or array 1 more than its deepest member.
 */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const member of Array.isArray(node) ? node : Object.values(node)) {
      if (member !== null && typeof member === 'object') stack.push([member, depth + 1]);
    }
  }
  return false;
}

/**
 * Parent-linked rows (regions, areas, departments) as trees of any depth. Everything here is
 * iterative: a chain thousands of levels deep must neither overflow the stack while it is nested nor
 * while it is written as JSON (JSON.stringify gives up at about 2,000 levels).
 */

export interface TreeItem {
  id: number;
  parentId: number;
}

export interface Arranged<T> {
  roots: T[];
  /** Children in the order of the input; absent for leaves. */
  children: Map<number, T[]>;
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Places every item exactly once: under its parent, or as a root when the parent is absent (0 or not
 * among the items). Items caught in a parent loop (bad data) hang from no root; the first of each loop
 * becomes one, so a loop is still shown and can be repaired.
 */
export function arrangeTree<T extends TreeItem>(items: readonly T[]): Arranged<T> {
  const ids = new Set(items.map((i) => i.id));
  const byParent = new Map<number, T[]>();
  const roots: T[] = [];
  for (const item of items) {
    if (item.parentId === item.id || !ids.has(item.parentId)) roots.push(item);
    else append(byParent, item.parentId, item);
  }
  const placed = new Set<number>();
  const children = new Map<number, T[]>();
  const placeFrom = (start: T) => {
    placed.add(start.id);
    const queue = [start];
    for (let q = 0; q < queue.length; q++) {
      const kids = (byParent.get(queue[q].id) ?? []).filter((k) => !placed.has(k.id));
      for (const k of kids) {
        placed.add(k.id);
        queue.push(k);
      }
      if (kids.length) children.set(queue[q].id, kids);
    }
  };
  for (const root of [...roots]) placeFrom(root);
  for (const item of items) {
    if (placed.has(item.id)) continue;
    roots.push(item);
    placeFrom(item);
  }
  return { roots, children };
}

/** Nests the items as nodes built by `toNode` (children first, so a node gets its finished children). */
export function buildTree<T extends TreeItem, N>(items: readonly T[], toNode: (item: T, children: N[]) => N): N[] {
  const { roots, children } = arrangeTree(items);
  const order: T[] = [...roots];
  for (let i = 0; i < order.length; i++) for (const kid of children.get(order[i].id) ?? []) order.push(kid);
  const built = new Map<number, N>();
  for (let i = order.length - 1; i >= 0; i--) {
    const item = order[i];
    built.set(
      item.id,
      toNode(
        item,
        (children.get(item.id) ?? []).map((kid) => built.get(kid.id) as N),
      ),
    );
  }
  return roots.map((r) => built.get(r.id) as N);
}

/**
 * The tree as a JSON array of `{...own(item), children: [...]}`, written without recursion. With
 * `leaves: 'omit'` a leaf carries no `children` key at all.
 */
export function treeToJson<T extends TreeItem>(
  items: readonly T[],
  own: (item: T) => object,
  opts: { leaves: 'empty' | 'omit' } = { leaves: 'empty' },
): string {
  const { roots, children } = arrangeTree(items);
  const out: string[] = ['['];
  const stack: Array<{ list: T[]; next: number }> = [{ list: roots, next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.list.length) {
      stack.pop();
      // closes the children list, and the node that holds it (the outermost list has none)
      out.push(stack.length > 0 ? ']}' : ']');
      continue;
    }
    const item = frame.list[frame.next++];
    if (frame.next > 1) out.push(',');
    const fields = JSON.stringify(own(item));
    const kids = children.get(item.id) ?? [];
    if (kids.length === 0 && opts.leaves === 'omit') {
      out.push(fields);
      continue;
    }
    out.push(fields === '{}' ? '{"children":[' : `${fields.slice(0, -1)},"children":[`);
    stack.push({ list: kids, next: 0 });
  }
  return out.join('');
}

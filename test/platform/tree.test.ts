import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { arrangeTree, buildTree, treeToJson, type TreeItem } from '../../src/platform/tree.js';

type Item = TreeItem & { name: string };
interface Node {
  id: number;
  name: string;
  children: Node[];
}

/** Random parent links among ids 1..n: parents absent, present, self, or forming loops. */
const forest = fc
  .integer({ min: 0, max: 40 })
  .chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.integer({ min: 0, max: n + 2 }).map((parentId): Item => ({ id: i + 1, parentId, name: `n${i + 1}` })),
      ),
    ),
  );

function ids(nodes: Node[]): number[] {
  const out: number[] = [];
  const stack = [...nodes];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n.id);
    stack.push(...n.children);
  }
  return out.sort((a, b) => a - b);
}

describe('tree building', () => {
  it('places every item exactly once, under its parent whenever that makes no loop', () => {
    fc.assert(
      fc.property(forest, (items) => {
        const nodes = buildTree<Item, Node>(items, (i, children) => ({ id: i.id, name: i.name, children }));
        expect(ids(nodes)).toEqual(items.map((i) => i.id));
        const { roots, children } = arrangeTree(items);
        for (const [parent, kids] of children) for (const k of kids) expect(k.parentId).toBe(parent);
        for (const r of roots) {
          const parentPresent = items.some((i) => i.id === r.parentId) && r.parentId !== r.id;
          // a root with a present parent is where a loop was broken: following parents from it comes back to it
          if (parentPresent) {
            let cur: Item | undefined = r;
            const seen = new Set<number>();
            while (cur && !seen.has(cur.id)) {
              seen.add(cur.id);
              cur = items.find((i) => i.id === cur!.parentId);
            }
            expect(cur).toBeDefined();
          }
        }
      }),
    );
  });

  it('writes the same JSON as JSON.stringify of the nested nodes, with or without empty leaf lists', () => {
    fc.assert(
      fc.property(forest, (items) => {
        const nested = buildTree<Item, Node>(items, (i, children) => ({ id: i.id, name: i.name, children }));
        expect(treeToJson(items, (i) => ({ id: i.id, name: i.name }))).toBe(JSON.stringify(nested));
        const omitting = buildTree<Item, object>(items, (i, children) =>
          children.length ? { id: i.id, name: i.name, children } : { id: i.id, name: i.name },
        );
        expect(treeToJson(items, (i) => ({ id: i.id, name: i.name }), { leaves: 'omit' })).toBe(
          JSON.stringify(omitting),
        );
      }),
    );
  });

  it('nests and writes a chain of 100,000 levels', () => {
    const items = Array.from({ length: 100_000 }, (_, i): Item => ({ id: i + 1, parentId: i, name: 'x' }));
    const nodes = buildTree<Item, Node>(items, (i, children) => ({ id: i.id, name: i.name, children }));
    expect(nodes).toHaveLength(1);
    const json = treeToJson(items, (i) => ({ id: i.id }));
    expect(json.startsWith('[{"id":1,"children":[{"id":2,')).toBe(true);
    expect(json.endsWith(']}'.repeat(100_000) + ']')).toBe(true);
    expect(treeToJson([], (i) => i)).toBe('[]');
  });
});
